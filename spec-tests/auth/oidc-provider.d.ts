// The part of oidc-provider's API the A6 tests use (the package ships no types).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  interface Grant {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }
  interface Interaction {
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, string>;
    session?: { accountId: string };
    grantId?: string;
  }
  interface StoredToken {
    aud?: string | string[];
    scope?: string;
    clientId?: string;
    isExpired: boolean;
    consumed?: unknown;
    destroy(): Promise<void>;
  }
  interface TokenModel {
    find(value: string): Promise<StoredToken | undefined>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    AccessToken: TokenModel;
    RefreshToken: TokenModel;
    ClientCredentials: TokenModel;
    on(event: string, listener: (...args: unknown[]) => void): void;
  }
}
