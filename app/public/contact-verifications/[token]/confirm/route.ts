import { confirmContactOp } from '@/server/http/operations/public';
import { routes } from '@/server/http/handler';
import { contactVerificationPage } from '@/server/http/pages/contactVerification';

// GET is the HTML confirm page (not a JSON operation); POST confirms through the wrapper.
export const { POST, PUT, PATCH, DELETE } = routes({ POST: confirmContactOp }, { alsoServed: ['GET'] });
export const GET = contactVerificationPage;
