import 'reflect-metadata';
import { IsEmail, IsIn, IsString, IsUUID } from 'class-validator';
import { MEMBER_ROLES, type MemberRole } from '../member';

/** D-38: a pending invite as listed (its secret is never stored or shown again). */
export class InviteV1 {
  @IsUUID() inviteId!: string;
  @IsEmail() email!: string;
  @IsIn(MEMBER_ROLES) role!: MemberRole;
  @IsString() createdAt!: string;
  @IsString() expiresAt!: string;
  @IsUUID() invitedBy!: string;
}
