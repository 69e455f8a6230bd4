// GET /admin/v1/upstreams and GET /admin/v1/system: the gateway's state as the operator reads
// it (src/admin/upstreams.ts, src/admin/system.ts). Read only.
import { systemStatus } from '../../admin/system.js';
import { upstreamHealth } from '../../admin/upstreams.js';
import type { Handler } from '../state.js';

export const listUpstreams: Handler = (ctx, services) => {
  ctx.body = upstreamHealth(services);
};

export const showSystem: Handler = async (ctx, services) => {
  ctx.body = await systemStatus(services);
};
