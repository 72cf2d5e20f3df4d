import type { components } from '../../../client/schema.js';

/** The API's documented shapes, from the generated typed client (`npm run client:generate`): one source for both. */
export type Schemas = components['schemas'];
