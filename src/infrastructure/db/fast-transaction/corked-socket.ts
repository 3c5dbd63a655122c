import { Socket } from 'node:net';

/**
 * A socket that holds what is written to it until the end of the current turn of the event loop,
 * then writes it at once. pg writes each statement as soon as it is queried; on this socket the
 * statements a write sends in one turn (a BEGIN and the first statement, the last statement and
 * COMMIT) cost one write to the socket and one wake of the server. Handed to pg through its
 * public `stream` setting, so it is our socket, not pg's.
 */
export class CorkedSocket extends Socket {
  private corkedUntilTurnEnds = false;

  override write: Socket['write'] = (...args: unknown[]) => {
    if (!this.corkedUntilTurnEnds) {
      this.corkedUntilTurnEnds = true;
      this.cork();
      process.nextTick(() => {
        this.corkedUntilTurnEnds = false;
        this.uncork();
      });
    }
    return (Socket.prototype.write as (...a: unknown[]) => boolean).apply(this, args);
  };
}
