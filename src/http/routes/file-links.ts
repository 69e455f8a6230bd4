// GET /download/{token}: a download link's file (src/cabinet/file-links.ts), without a session
// or a key — the token is the credential. Served as GET /v1/files/{id}/content serves a file
// (sendStoredFile: the same headers, Range, ETag and storage errors). An unknown, altered or
// expired token, and a file gone since the link was made, are one 404: the answer does not tell
// a guesser which.
import { GatewayError } from '../../errors/gateway-error.js';
import { FileLinks } from '../../cabinet/file-links.js';
import type { Handler } from '../state.js';
import { sendStoredFile } from './files.js';

const noSuchLink = () => new GatewayError('not_found', 'This download link does not exist or has expired.');

export const fileByLink: Handler = async (ctx, services) => {
  const target = await new FileLinks(services.db, services.now).resolve(ctx.params.token ?? '');
  const file = target ? await services.files.get(target.accountId, target.fileId) : undefined;
  if (!file) throw noSuchLink();
  await sendStoredFile(ctx, services, file);
};
