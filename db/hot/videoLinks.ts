import { bookingVideoLinks } from '../schema';
import type { Executor } from '../client';
import { columnList, names, rowMapper } from './columns';
import { queryRows } from './driver';

const v = names(bookingVideoLinks);
/** A booking's video link row (docs/calendars.md "Video links"); read with every event about a booking (notificationService.ts). */
const VIDEO_LINK_OF = `select ${columnList(bookingVideoLinks, 'v', 'v_')} from "booking_video_links" v where v."${v.claimId}" = $1::uuid`;
const mapVideoLink = rowMapper(bookingVideoLinks, 'v_');

export async function selectVideoLink(db: Executor, claimId: string): Promise<typeof bookingVideoLinks.$inferSelect | null> {
  const [row] = await queryRows(db, VIDEO_LINK_OF, [claimId]);
  return row ? mapVideoLink(row) : null;
}
