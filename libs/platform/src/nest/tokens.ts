/** Injection token of the app's pino logger (`@Inject(LOGGER) logger: AppLogger`). */
export const LOGGER = Symbol('LOGGER');
