/**
 * A field the client left out or sent as null: nothing to send. The contract's optional
 * request fields are "nullable, not required" (api-spec.md, POST /sessions), so null and
 * absent mean the same everywhere a route does not say otherwise.
 */
export const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;
