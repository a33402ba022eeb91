/** A calendar date, `YYYY-MM-DD` (months 01–12, days 01–31; the calendar check is the consumer's). */
export const CALENDAR_DATE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
