// Whether something answers a TCP connect on 127.0.0.1:port within a second (the test and
// chaos drivers use it to find PostgreSQL and Redis on their standard ports).
import net from 'node:net';

export function reachable(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}
