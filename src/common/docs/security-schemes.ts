/** Names of the OpenAPI security schemes: partner API keys and driver tokens. */
export const API_KEY_SCHEME = 'api-key';
export const DRIVER_TOKEN_SCHEME = 'driver-token';
