// TypeSafe System One: decisions only; base_url is required.
import type { Vendor } from '../vendor.js';
import { systemOneAdapter } from './decisions.js';

export const systemOneVendor: Vendor = {
  media: [systemOneAdapter],
  jobs: [],
};
