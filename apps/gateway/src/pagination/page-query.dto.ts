import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@worktrack/contracts';

/** `limit` and `cursor` of a list that pages with `meta.cursor`. */
export class PageQueryDto {
  @ApiProperty({ required: false, minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, type: 'integer' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @ApiProperty({ required: false, description: 'The `meta.cursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

/** The page request a list command carries. */
export const pageOf = (query: PageQueryDto): { limit: number; cursor?: string } => ({
  limit: query.limit ?? DEFAULT_PAGE_SIZE,
  ...(query.cursor ? { cursor: query.cursor } : {}),
});
