import type { WorkingHours } from '@worktrack/contracts';
import { workingHoursProblem } from './members.service';

const week = (mon: WorkingHours['mon']): WorkingHours => ({ mon, tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] });

describe('workingHoursProblem (PATCH /v1/me)', () => {
  it('accepts days off and ordered, disjoint intervals (touching is fine)', () => {
    expect(workingHoursProblem(week([]))).toBeUndefined();
    expect(
      workingHoursProblem(
        week([
          { start: '09:00', end: '12:00' },
          { start: '12:00', end: '17:30' },
        ]),
      ),
    ).toBeUndefined();
  });

  it('names the first interval that ends before it starts, overlaps or is out of order', () => {
    expect(workingHoursProblem(week([{ start: '17:00', end: '09:00' }]))).toEqual({
      path: 'working_hours.mon[0]',
      issue: 'start must be before end',
    });
    expect(workingHoursProblem(week([{ start: '09:00', end: '09:00' }]))?.path).toBe('working_hours.mon[0]');
    expect(
      workingHoursProblem(
        week([
          { start: '09:00', end: '13:00' },
          { start: '12:00', end: '17:00' },
        ]),
      ),
    ).toEqual({ path: 'working_hours.mon[1]', issue: 'intervals must be in order and must not overlap' });
    expect(
      workingHoursProblem(
        week([
          { start: '13:00', end: '17:00' },
          { start: '09:00', end: '12:00' },
        ]),
      )?.path,
    ).toBe('working_hours.mon[1]');
  });
});
