import { Type } from 'class-transformer';
import { IsOptional, IsString, MinLength, ValidateBy, ValidateNested, type ValidationOptions } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { canonicalTimeZone, MaxCodePoints, WorkingHours } from '@worktrack/contracts';

/** A name the time zone database knows (`Europe/Berlin`); offsets such as `+05:00` are not zones. */
export const IsIanaTimeZone = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isIanaTimeZone',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && canonicalTimeZone(value) !== undefined,
        defaultMessage: () => 'timezone must be an IANA time zone name, e.g. Europe/Berlin',
      },
    },
    options,
  );

/** `PATCH /v1/me`: any of the fields; absent ones are kept. */
export class UpdateMeDto {
  @JSONSchema({
    description: 'IANA time zone name, e.g. `Asia/Tokyo`. Date filters, plate days and "today" follow it from the next request.',
    examples: ['Asia/Tokyo'],
  })
  @IsOptional()
  @IsString()
  @MaxCodePoints(64)
  @IsIanaTimeZone()
  timezone?: string;

  @JSONSchema({
    description: 'Per weekday, the working intervals (`HH:MM`, in `timezone`, in order, not overlapping); `[]` for a day off.',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => WorkingHours)
  working_hours?: WorkingHours;

  @JSONSchema({ description: 'The name teammates see.', examples: ['Ada L.'] })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxCodePoints(200)
  display_name?: string;
}
