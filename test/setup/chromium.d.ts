export declare function unpackChromium(): Promise<string>;
