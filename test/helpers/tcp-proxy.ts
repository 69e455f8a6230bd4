// A TCP proxy on loopback in front of PostgreSQL or Redis, for outage tests: `cut()` drops
// every open connection and refuses new ones (as a dead server or a broken network would),
// `restore()` lets connections through again. The port stays the same throughout, so the
// gateway under test keeps its configured URL, as it would across a real outage.
import net from 'node:net';
import { once } from 'node:events';

export interface TcpProxy {
  /** The loopback port to point the gateway at. */
  readonly port: number;
  /** Connections made through the proxy since it started (cut ones included). */
  readonly connectionsAccepted: number;
  /** Destroys every open connection; new ones are reset at once until `restore()`. */
  cut(): void;
  /** Connections stay open but no byte passes either way (a hung server, a black-holed network) until `restore()`. */
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let isCut = false;
  let isStalled = false;
  let accepted = 0;
  const pairs = new Set<[net.Socket, net.Socket]>();
  const connect = ([client, upstream]: [net.Socket, net.Socket]) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // a reset is the point of the exercise
  };
  const server = net.createServer((client) => {
    if (isCut) {
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    accepted++;
    const upstream = net.connect({ host: targetHost, port: targetPort });
    track(client);
    track(upstream);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    if (!isStalled) connect(pair);
    client.once('close', () => pairs.delete(pair));
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const dropAll = () => {
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
  };
  return {
    port,
    get connectionsAccepted() {
      return accepted;
    },
    cut() {
      isCut = true;
      dropAll();
    },
    stall() {
      isStalled = true;
      for (const [client, upstream] of pairs) {
        // Unpiped and paused: bytes wait in the kernel's buffers, as on a stalled TCP path.
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      isCut = false;
      if (isStalled) {
        isStalled = false;
        for (const pair of pairs) connect(pair);
      }
    },
    async close() {
      isCut = true;
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
