import net from 'node:net';

/**
 * A TCP port nothing listens on now, chosen by the kernel (listen on 0, then close). A port derived
 * from the pid can land on one in use: the derived range overlaps the ephemeral ports clients get.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
