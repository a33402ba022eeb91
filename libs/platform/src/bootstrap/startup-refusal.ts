/**
 * A start-up failure no retry can fix (the app's own wiring is wrong, not a
 * dependency away): the app exits at once instead of trying again.
 */
export class StartupRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupRefusal';
  }
}

export const isStartupRefusal = (err: unknown): boolean => err instanceof Error && err.name === 'StartupRefusal';
