import { mintCredentialOp } from '@/server/http/operations/publicAdmin';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ POST: mintCredentialOp });
