// The download step of every job vendor: a completed job names its results by URL, and the
// upstream's key goes only to the upstream's own origin (a CDN or storage host gets none).
import type { JobAsset } from '../../model/jobs.js';
import type { MediaOperation } from '../media-types.js';
import { bearer, invalidResponse } from './wire.js';

/** GET of a result with the upstream's key (results on other origins, e.g. a CDN, get no key). */
export function downloadWithKey(expectedType: string): MediaOperation<JobAsset, Uint8Array> {
  return {
    build: (asset, target) => ({
      url: asset.url,
      method: 'GET',
      headers: { ...(new URL(asset.url).origin === new URL(target.baseUrl).origin ? bearer(target.apiKey) : {}), accept: 'application/binary' },
    }),
    parse: (response) => {
      if (response.body.byteLength === 0) throw invalidResponse(`the upstream's ${expectedType} download is empty`);
      return response.body;
    },
  };
}
