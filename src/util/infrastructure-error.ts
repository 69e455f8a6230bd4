// A failure of what the gateway runs on — a port already taken, a database that cannot be
// reached, is not migrated or has no directory — rather than of the gateway itself. Its message
// is one line that names the setting or the command that fixes it; commands print it without a
// stack, because a stack would only bury that line.
import type { ErrorCode } from '../errors/catalog.js';
import { DomainError } from '../errors/domain-error.js';

export class InfrastructureError extends DomainError {
  override readonly catalogCode: ErrorCode = 'infrastructure_unavailable';
  override readonly seenIn = 'cli';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InfrastructureError';
  }
}
