// Where a Bedrock provider is reached: its base_url when configured (a simulator, a VPC
// endpoint, a proxy), else the runtime endpoint of its region. The vendor's defaultBaseUrl is
// a template with `{region}` (one URL cannot hold every region); it is filled in here, per
// request, from the provider's `region` setting.
import type { UpstreamTarget } from '../types.js';

export const regionTemplate = 'https://bedrock-runtime.{region}.amazonaws.com';

export function endpointOf(target: Pick<UpstreamTarget, 'baseUrl' | 'settings'>): string {
  const base = target.baseUrl.replace(/\/+$/, '');
  if (!base.includes('{region}')) return base;
  return base.replace('{region}', encodeURIComponent(regionOf(target.settings)));
}

/** The provider's region (`us-east-1`); the config requires it, so absent means a misuse. */
export function regionOf(settings: Readonly<Record<string, unknown>> | undefined): string {
  const region = settings?.region;
  if (typeof region !== 'string' || region === '') throw new Error('a bedrock provider needs its region');
  return region;
}
