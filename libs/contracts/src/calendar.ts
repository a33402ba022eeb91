/** D-3: an RFC 3339 date-time with an explicit offset (`Z` or `±hh:mm`). */
export const RFC3339_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A calendar date, `YYYY-MM-DD` (months 01–12, days 01–31; the calendar check is the consumer's). */
export const CALENDAR_DATE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
