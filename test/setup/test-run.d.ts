export declare const SERVER_URL: string;
export declare const HOST_TAG: string;
export declare const DATABASE_PREFIX: string;
export declare function newRunId(): string;
export declare function ownerOf(datname: string): { host: string; pid: number } | null;
export declare function isAlive(pid: number): boolean;
export declare function databaseUrl(name: string): string;
export declare function embeddedTemplate(runId: string): string;
