import { notFoundRoutes } from '@/server/http/handler';

// Unknown paths under /v1 answer 404 in the error envelope, for every method.
export const { GET, POST, PUT, PATCH, DELETE } = notFoundRoutes();
