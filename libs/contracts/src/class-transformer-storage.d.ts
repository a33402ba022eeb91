// class-transformer 0.5.1 (pinned) ships its metadata storage without a typed entry point.
declare module 'class-transformer/cjs/storage' {
  import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
  export const defaultMetadataStorage: MetadataStorage;
}
