import type { AnyOperation } from '../operation';
import { buildOpenApiDocument } from '../openapi';
import * as admin from './admin';
import { openApiOp } from './meta';
import * as proposals from './proposals';
import * as publicRequester from './public';
import * as publicAdmin from './publicAdmin';
import * as scheduling from './scheduling';

/**
 * Every REST operation. The OpenAPI document is generated from this list, and
 * tests/integration/openapi.test.ts fails when an app/ route binds an
 * operation missing here, so docs cannot drift from code.
 */
export const operations: readonly AnyOperation[] = [openApiOp, ...Object.values(admin), ...Object.values(scheduling), ...Object.values(publicAdmin), ...Object.values(proposals), ...Object.values(publicRequester)] as AnyOperation[];

type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
let cached: { base: string; doc: OpenApiDocument } | undefined;
export function openApiDocument(baseUrl: string): OpenApiDocument {
  if (!cached || cached.base !== baseUrl) cached = { base: baseUrl, doc: buildOpenApiDocument(operations, baseUrl) };
  return cached.doc;
}
