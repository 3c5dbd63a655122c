/**
 * The service tier's tests and hooks wait longer than a node's own start timeout, so that a
 * start slowed by a loaded machine fails with a message that says so (start-timeout.ts) rather
 * than with jest's generic hook timeout.
 */
import { START_TIMEOUT_MS } from './start-timeout';

jest.setTimeout(START_TIMEOUT_MS + 30_000);
