// The fields every async job request shares (videos, video upscale, music): idempotency,
// webhook, and waiting for the end.
import { z } from 'zod';

export const jobControlFields = {
  idempotency_key: z.string().min(1).max(128).optional(),
  webhook_url: z.string().min(1).max(2048).optional(),
  wait: z.boolean().default(false),
  /** Seconds a `wait` request may take. */
  wait_timeout: z.number().int().min(1).max(300).default(60),
};
