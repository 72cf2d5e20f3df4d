/** class-transformer's metadata store (the `@Type` of nested DTO properties); it ships no typings for this path. */
declare module 'class-transformer/cjs/storage.js' {
  export const defaultMetadataStorage: unknown;
}
