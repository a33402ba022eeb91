import { applyDecorators } from '@nestjs/common';
import { Expose, Transform } from 'class-transformer';

/** A string variable. */
export const EnvString = (): PropertyDecorator => Expose();

/** An integer variable; anything that is not a whole number stays a string and fails `@IsInt`. */
export const EnvInt = (): PropertyDecorator =>
  applyDecorators(
    Expose(),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value)),
  );

/** A boolean variable: true/false/1/0/yes/no; anything else stays a string and fails `@IsBoolean`. */
export const EnvBool = (): PropertyDecorator =>
  applyDecorators(
    Expose(),
    Transform(({ value }: { value: unknown }) => {
      if (typeof value !== 'string') return value;
      const v = value.trim().toLowerCase();
      if (['true', '1', 'yes'].includes(v)) return true;
      if (['false', '0', 'no'].includes(v)) return false;
      return value;
    }),
  );
