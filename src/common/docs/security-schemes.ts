/** Names of the OpenAPI security schemes: API keys, a signed-in person's session cookie, driver tokens. */
export const API_KEY_SCHEME = 'api-key';
export const SESSION_SCHEME = 'session';
export const DRIVER_TOKEN_SCHEME = 'driver-token';

/** The OpenAPI extension that names each operation's requirement; the document's descriptions say it in words. */
export const REQUIREMENT_EXTENSION = 'x-required-permission';
