/**
 * The connections of the sandbox's deliveries (an undici Agent): each name resolved by `guardedLookup` for the
 * connection's port, so the address checked is the one connected to (receivers.ts). Apart from receivers.ts so
 * that the rules, which the sandbox's options and settings name, carry no undici types with them.
 */
import { Agent, buildConnector } from "undici";
import { guardedLookup, type ReceiverPolicy } from "./receivers.ts";

/** What the sandbox holds of the agent, fetch's `dispatcher` (declared without undici's types, which the devkit's declarations do not ship). */
export interface ReceiverAgent {
  close(): Promise<void>;
}

/**
 * The dispatcher the sandbox's deliveries go through: each connection's name is resolved by `guardedLookup`
 * for its port. Keeps a connection a second at most after its attempt (the next attempt is seconds away).
 */
export function receiverAgent(policy: ReceiverPolicy): ReceiverAgent {
  const connectors = new Map<number, buildConnector.connector>();
  return new Agent({
    keepAliveTimeout: 1_000,
    keepAliveMaxTimeout: 1_000,
    connect: (options, callback) => {
      const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
      let connector = connectors.get(port);
      if (!connector) {
        connector = buildConnector({ lookup: guardedLookup(port, policy) } as buildConnector.BuildOptions);
        if (connectors.size >= 256) connectors.clear();
        connectors.set(port, connector);
      }
      connector(options, callback);
    },
  });
}
