// Why a server cannot listen, in the words of the settings that choose its address: the same
// one line for `serve` (flags, environment, config) and `simulate` (flags only), never a stack.
import { InfrastructureError } from './infrastructure-error.js';

/** How the user chooses the address: "--port, GATEWAY_PORT or server.port in the config". */
export interface AddressSettings {
  readonly port: string;
  readonly host: string;
}

export function listenFailure(error: unknown, host: string, port: number, settings: AddressSettings): unknown {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const otherPort = `choose another port with ${settings.port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new InfrastructureError(`cannot listen on ${where}: the port is in use by another process; stop it, or ${otherPort}`, { cause: error });
    case 'EACCES':
      return new InfrastructureError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); ${otherPort}`, { cause: error });
    case 'EADDRNOTAVAIL':
      return new InfrastructureError(`cannot listen on ${where}: ${host} is not an address of this machine; choose another with ${settings.host}`, { cause: error });
    default:
      return error;
  }
}
