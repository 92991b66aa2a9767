/** A port on 127.0.0.1 held by a server of ours, for the tests of what a command says when its port is taken. */
import { createServer, type Server } from "node:net";

export async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  const port = await new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
  return { port, server };
}
