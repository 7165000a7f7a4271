import { confirmContactOp } from '@/server/http/operations/public';
import { routes } from '@/server/http/handler';
import { contactVerificationPage } from '@/server/http/pages/contactVerification';
import { traceRequest } from '@/server/observability/tracing';

// GET is the HTML confirm page (not a JSON operation); POST confirms through the wrapper.
export const { POST, PUT, PATCH, DELETE } = routes({ POST: confirmContactOp }, { alsoServed: ['GET'] });
export const GET = (req: Request, ctx: Parameters<typeof contactVerificationPage>[1]) =>
  traceRequest(req, 'GET /public/contact-verifications/{token}/confirm', '/public/contact-verifications/{token}/confirm', () => contactVerificationPage(req, ctx));
