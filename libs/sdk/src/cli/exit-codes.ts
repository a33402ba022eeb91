/**
 * The CLI's exit codes: a script branches on them, so they never change
 * meaning. `worktrack --help` prints this table.
 */
export enum ExitCode {
  /** Done: the API answered with success (or there was nothing to do). */
  Ok = 0,
  /** Something unexpected inside the CLI itself (a bug): report it. */
  Internal = 1,
  /** The command line or its input is malformed; nothing was sent. */
  Usage = 2,
  /** 401 or 403: the token is missing, wrong, revoked or lacks the scope. */
  Auth = 3,
  /** Any other 4xx: the API refused the request (the message says why). */
  Rejected = 4,
  /** The API failed (5xx) or could not be reached, after retries. Nothing was queued. */
  Unavailable = 5,
  /** The API could not be reached: the events are in the offline queue and will be sent later. */
  Queued = 6,
  /** The offline queue is full or cannot be written: the events were NOT recorded. */
  QueueFull = 7,
}

export const EXIT_CODES_HELP = `Exit codes:
  0  ok
  1  internal error of the CLI
  2  usage error (bad arguments or input); nothing was sent
  3  authentication or permission refused (401, 403)
  4  request refused by the API (other 4xx); see the message
  5  API unavailable or failing (5xx, unreachable) after retries; nothing queued
  6  API unreachable: events kept in the offline queue, sent by a later call or \`worktrack flush\`
  7  offline queue full or not writable: the events were NOT recorded`;
