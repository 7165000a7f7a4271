/**
 * The public pages' icons as plain inline SVG: the same drawings as
 * lucide-react (v1.75, ISC licence; paths copied from its icon data), without
 * lucide's runtime in the requester's JavaScript (docs/benchmarks.md "Browser
 * pages"). lucide's Icon is a client component, so even an icon rendered by a
 * server component loads it; these do not. Decorative: aria-hidden. Each is
 * marked pure so a client chunk keeps only the icons its code uses.
 */
import type { SVGProps } from 'react';

type IconProps = SVGProps<SVGSVGElement>;

function icon(paths: string[]) {
  return function Icon(props: IconProps) {
    return (
      <svg xmlns="http://www.w3.org/2000/svg" width={24} height={24} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden {...props}>
        {paths.map((d) => (
          <path key={d} d={d} />
        ))}
      </svg>
    );
  };
}
export const ArrowLeft = /* @__PURE__ */ icon(["m12 19-7-7 7-7","M19 12H5"]);
export const CalendarCheck2 = /* @__PURE__ */ icon(["M 19 3 L 5 3","M 21 13 L 21 5","M 21 5 A2 2 0 0 0 19 3","M 3 19 A2 2 0 0 0 5 21","M 3 5 L 3 19","M 5 3 A2 2 0 0 0 3 5","m16 19 2 2 4-4","M16 2v3","M3 9h18","M5 21 L12.5 21","M8 2v3"]);
export const CalendarClock = /* @__PURE__ */ icon(["M16 14v2.2l1.6 1","M16 2v3","M21 7.338V5a2 2 0 00-2-2H5a2 2 0 00-2 2v14a2 2 0 002 2h2.338","M3 9h5.859","M8 2v3","M10 16a6 6 0 1 0 12 0a6 6 0 1 0 -12 0"]);
export const CalendarX2 = /* @__PURE__ */ icon(["M16 2v3","m17 16 5 5","m17 21 5-5","M21 12V5a2 2 0 00-2-2H5a2 2 0 00-2 2v14a2 2 0 002 2h8","M3 9h18","M8 2v3"]);
export const ChevronLeft = /* @__PURE__ */ icon(["m15 18-6-6 6-6"]);
export const ChevronRight = /* @__PURE__ */ icon(["m9 18 6-6-6-6"]);
export const Clock = /* @__PURE__ */ icon(["M2 12a10 10 0 1 0 20 0a10 10 0 1 0 -20 0","M12 6v6l4 2"]);
export const Globe = /* @__PURE__ */ icon(["M2 12a10 10 0 1 0 20 0a10 10 0 1 0 -20 0","M12 2a14.5 14.5 0 0 0 0 20 14.5 14.5 0 0 0 0-20","M2 12h20"]);
export const Hourglass = /* @__PURE__ */ icon(["M5 22h14","M5 2h14","M17 22v-4.172a2 2 0 0 0-.586-1.414L12 12l-4.414 4.414A2 2 0 0 0 7 17.828V22","M7 2v4.172a2 2 0 0 0 .586 1.414L12 12l4.414-4.414A2 2 0 0 0 17 6.172V2"]);
export const Languages = /* @__PURE__ */ icon(["m5 8 6 6","m4 14 6-6 2-3","M2 5h12","M7 2h1","m22 22-5-10-5 10","M14 18h6"]);
export const KeyRound = /* @__PURE__ */ icon(["M2.586 17.414A2 2 0 0 0 2 18.828V21a1 1 0 0 0 1 1h3a1 1 0 0 0 1-1v-1a1 1 0 0 1 1-1h1a1 1 0 0 0 1-1v-1a1 1 0 0 1 1-1h.172a2 2 0 0 0 1.414-.586l.814-.814a6.5 6.5 0 1 0-4-4z","M16 7.5a.5 .5 0 1 0 1 0a.5 .5 0 1 0 -1 0"]);
export const MailCheck = /* @__PURE__ */ icon(["M22 13V6a2 2 0 0 0-2-2H4a2 2 0 0 0-2 2v12c0 1.1.9 2 2 2h8","m22 7-8.97 5.7a1.94 1.94 0 0 1-2.06 0L2 7","m16 19 2 2 4-4"]);
export const MailQuestion = /* @__PURE__ */ icon(["M22 10.35V6a2 2 0 00-2-2H4a2 2 0 00-2 2v12a2 2 0 002 2h12.3","m22 7-8.97 5.7a2 2 0 01-2.06 0L2 7","M20 18.5c.5-1 2-1 2-2.5a2 2 0 00-2-2 2.5 2.5 0 00-2 1","M20 22h.01"]);
export const PenLine = /* @__PURE__ */ icon(["M13 21h8","M21.174 6.812a1 1 0 0 0-3.986-3.987L3.842 16.174a2 2 0 0 0-.5.83l-1.321 4.352a.5.5 0 0 0 .623.622l4.353-1.32a2 2 0 0 0 .83-.497z"]);
export const Plus = /* @__PURE__ */ icon(["M5 12h14","M12 5v14"]);
export const Trash2 = /* @__PURE__ */ icon(["M10 11v6","M14 11v6","M19 6v14a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V6","M3 6h18","M8 6V4a2 2 0 0 1 2-2h4a2 2 0 0 1 2 2v2"]);
export const Undo2 = /* @__PURE__ */ icon(["M9 14 4 9l5-5","M4 9h10.5a5.5 5.5 0 0 1 5.5 5.5a5.5 5.5 0 0 1-5.5 5.5H11"]);
export const Download = /* @__PURE__ */ icon(["M12 15V3","M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4","m7 10 5 5 5-5"]);
export const MapPin = /* @__PURE__ */ icon(["M20 10c0 4.993-5.539 10.193-7.399 11.799a1 1 0 0 1-1.202 0C9.539 20.193 4 14.993 4 10a8 8 0 0 1 16 0","M9 10a3 3 0 1 0 6 0a3 3 0 1 0 -6 0"]);
export const Users = /* @__PURE__ */ icon(["M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2","M16 3.128a4 4 0 0 1 0 7.744","M22 21v-2a4 4 0 0 0-3-3.87","M5 7a4 4 0 1 0 8 0a4 4 0 1 0 -8 0"]);
