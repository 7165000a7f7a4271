import { DomainError } from '@/server/domain/errors';

/**
 * Read a JSON request body with a size cap. An empty body reads as `{}` (all
 * our bodies are objects whose fields may all be optional). Any other body
 * must be declared `application/json` (or `+json`).
 */
export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readTextCapped(req, maxBytes);
  if (text.trim() === '') return {};
  const type = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new DomainError('unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json)');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DomainError('invalid_json', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}

async function readTextCapped(req: Request, maxBytes: number): Promise<string> {
  if (!req.body) return '';
  // A declared length (checked against the cap above) bounds the body: HTTP framing ends it there.
  if (req.headers.has('content-length')) return decodeUtf8(new Uint8Array(await req.arrayBuffer()));
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return decodeUtf8(Buffer.concat(chunks));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DomainError('invalid_json', 'The request body is not valid UTF-8');
  }
}

function tooLarge(maxBytes: number): DomainError {
  return new DomainError('payload_too_large', `The request body exceeds ${maxBytes} bytes`);
}
