// GENERATED FILE — DO NOT EDIT.
// TypeScript types of the worktrack API, from its OpenAPI document (GET /openapi.yaml).
// Regenerate with `npm run generate:sdk` (scripts/generate-sdk.ts); a unit test fails when it is stale.
export interface paths {
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session JWTs’ public keys
         * @description RFC 7517 JSON Web Key Set: public EC P-256 keys, each with its `kid`.
         */
        get: operations["jwks.jwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/activity/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read your activity timeline
         * @description Newest first; `meta.cursor` fetches the next page.
         */
        get: operations["activity.timeline"];
        put?: never;
        /**
         * Ingest activity events
         * @description One ActivityEvent, or `{ events: [...] }` with at most 100. All or nothing; retries with the same `external_id` are deduplicated. 202 means stored.
         */
        post: operations["activity.ingest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register an agent
         * @description Creates an agent member in the caller's workspace (timezone and working hours copied from the caller) and its API token. Owners and admins with a `full` credential only; agents cannot register agents.
         */
        post: operations["agents.register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/accept-invite": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invite
         * @description The link’s `token` works once, before it expires: creates the member in the inviter’s workspace and signs it in (refresh cookie). A used, withdrawn or expired link is 401 `INVALID_CREDENTIALS`.
         */
        post: operations["signIn.acceptInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with email and password
         * @description Answers a session JWT and sets the refresh cookie (`HttpOnly; Secure; SameSite=Strict; Path=/v1/auth`). An unknown email and a wrong password get the same 401 `INVALID_CREDENTIALS`; with two-factor on, send `totp_code` or `recovery_code` (else 401 `SECOND_FACTOR_REQUIRED`). Five failures per email and client address in 15 minutes: 429 for that pair only.
         */
        post: operations["signIn.login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Ends the browser session of the refresh cookie (from the app’s own origin) and clears the cookie.
         */
        post: operations["signIn.logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Renew the access token
         * @description With the refresh cookie only (no body), from the app’s own origin (`Origin`, else 403). Rotates the refresh secret; presenting a rotated-out one ends that browser session.
         */
        post: operations["signIn.refresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your browser sessions
         * @description Sessions that have not ended, newest first.
         */
        get: operations["signIn.sessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions/{sid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End a browser session
         * @description Its access tokens are refused by every gateway replica within 5 seconds. Another member’s session is a 404.
         */
        delete: operations["signIn.end"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/connectors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your connectors
         * @description Those acting for you and those you created; never with a secret.
         */
        get: operations["connectors.list"];
        put?: never;
        /**
         * Connect a provider account
         * @description github and slack need `secret` and answer at `hook_path`; calendar needs `feed_url` and is polled. Secrets are stored encrypted and never returned. The connector writes through the same path as POST /activity/events, as `member_id`, with a report_only token.
         */
        post: operations["connectors.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/connectors/{connector_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Disconnect
         * @description Revokes the connector’s token; its hook answers 404 from then on. Events already stored stay.
         */
        delete: operations["connectors.remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/connectors/{connector_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a connector's delivery log
         * @description Newest first: every verified delivery (or calendar poll that changed something or failed), with what was mapped, accepted and deduplicated, and why anything was ignored or failed.
         */
        get: operations["connectors.deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness probe
         * @description The process serves HTTP; dependencies are not checked. No credential.
         */
        get: operations["operations.healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/github/{connector_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * GitHub webhook endpoint
         * @description Point a repository or organisation webhook here (JSON or form content type) with the connector’s secret. X-Hub-Signature-256 is checked in constant time; push, pull_request, workflow_run, check_run, deployment_status and release become ActivityEvents (external_id = X-GitHub-Delivery + index, so redeliveries dedupe). Deliveries up to GitHub’s 25 MB limit are accepted; what is stored stays bounded. Other events are acknowledged and logged as ignored.
         */
        post: operations["hooks.github"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/slack/{connector_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Slack Events API endpoint
         * @description The Request URL of a Slack app whose signing secret the connector holds. Answers the url_verification challenge (`{ "challenge": … }`); checks the v0 signature within a 5-minute window; retries (X-Slack-Retry-Num) dedupe by event_id. Messages, reactions and huddles become metadata-only events.
         */
        post: operations["hooks.slack"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pending invites
         * @description Owners and admins; newest first, without links.
         */
        get: operations["invites.list"];
        put?: never;
        /**
         * Invite someone by email
         * @description Owners and admins. The link works once, before `expires_at`. An active member’s email is 409 `MEMBER_EXISTS`.
         */
        post: operations["invites.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invites/{invite_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Withdraw an invite
         * @description Its link stops working. A used or unknown invite is a 404.
         */
        delete: operations["invites.withdraw"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an MCP message
         * @description One JSON-RPC message of the Model Context Protocol (streamable HTTP transport, stateless): `initialize`, `tools/list`, `tools/call` and the rest. Tools: whoami, start_session, pause_session, resume_session, close_session, list_sessions, report_event, assign_to_plate, my_plate. A tool that fails answers a result with `isError: true` whose text starts with the error code. Without a valid bearer credential the answer is 401 and no tool is listed. GET and DELETE answer 405 with `Allow: POST`: the server is stateless, with no event stream to open and no session to end.
         */
        post: operations["mcp.post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the member the credential acts as
         * @description Profile, timezone and working hours.
         */
        get: operations["me.me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change your profile
         * @description Any of `timezone` (IANA name), `working_hours` and `display_name`; absent fields are kept. Later requests use the new values: date filters of sessions, plate days and "today". Plate items keep the calendar day they were put on; sessions keep their instants.
         */
        patch: operations["me.update"];
        trace?: never;
    };
    "/me/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change your password
         * @description Checks the current one (400 when it is not right); ends your other browser sessions (this one stays).
         */
        post: operations["signIn.changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/totp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start two-factor enrolment
         * @description A new TOTP secret (SHA-1, 30 s, 6 digits); confirm with a code.
         */
        post: operations["twoFactor.start"];
        /**
         * Turn two-factor off
         * @description With a current code.
         */
        delete: operations["twoFactor.disable"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/totp/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn two-factor on
         * @description With a code of the new secret; answers ten one-time recovery codes, once.
         */
        post: operations["twoFactor.confirm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/members/{member_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set a member's plate capacity or role
         * @description Owners and admins with a `full` credential. Absent fields are kept. The change applies to later requests on every route.
         */
        patch: operations["members.update"];
        trace?: never;
    };
    "/members/{member_id}/deactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deactivate a member
         * @description Owners and admins with a `full` credential; idempotent. The member's API tokens and session tokens stop working within 5 seconds on every replica; nothing of theirs is deleted; no new plate item can be assigned to them.
         */
        post: operations["members.deactivate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description The Prometheus text exposition of this replica. Needs the operator token when one is configured.
         */
        get: operations["operations.metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/model-prices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the workspace's model prices
         * @description USD per million tokens; used to cost usage reported without one.
         */
        get: operations["modelPrices.get"];
        /**
         * Replace the workspace's model prices
         * @description Replaces the whole list (owners and admins). Applies to usage received afterwards without a reported cost; stored costs never change.
         */
        put: operations["modelPrices.put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read your plate for a day
         * @description Default: your today in your timezone. Done items are listed with `done: true`. Items come in creation order, a page at a time; `meta.cursor` fetches the next items of the same day.
         */
        get: operations["plate.day"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plate/assign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Put an item on a teammate's plate
         * @description Respects the assignee's daily capacity; a full day overflows to the next working day with room. Capacity holds under concurrent assignments.
         */
        post: operations["plate.assign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plate/items/{item_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Mark a plate item done
         * @description By the assignee or the assigner; idempotent. Others get 404.
         */
        patch: operations["plate.complete"];
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness probe
         * @description Kafka and the reply consumer answer and the gateway is not draining; otherwise 503 naming what failed. No credential.
         */
        get: operations["operations.readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reports/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Report activity
         * @description Events per source and event type, in and outside sessions.
         */
        get: operations["reports.activity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reports/plate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Report plates
         * @description Per assignee and day: capacity, items assigned, done and overflowed; future days allowed.
         */
        get: operations["reports.plate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reports/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Report sessions
         * @description One row per session overlapping the period, newest first, with its events and spend.
         */
        get: operations["reports.sessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reports/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Report totals per group
         * @description Tracked and paused time, sessions, events in and outside sessions, usage cost and tokens for a period, grouped by up to two keys. Sessions crossing midnight in `tz` are split; a live session counts up to `meta.as_of`.
         */
        get: operations["reports.summary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your sessions
         * @description Newest `started_at` first, ties by `session_id`; `from`/`to` are inclusive calendar dates in the member's profile time zone; pages never skip or repeat a session while sessions are added.
         */
        get: operations["sessions.list"];
        put?: never;
        /**
         * Start or record a session
         * @description `timer` starts a live session now and closes the previous live one at the new `started_at`. `manual` records a finished block, stored closed; it never closes a live session and may overlap others. With `idempotency_key`, a retry with the same body answers 201 with the session as it is now.
         */
        post: operations["sessions.start"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{session_id}/close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close a session
         * @description Active and paused sessions can be closed; a closed one is answered unchanged (idempotent). `closed_at` back-dates the close by up to 24 hours and is capped at the maximum session duration.
         */
        post: operations["sessions.close"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{session_id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a session
         * @description Only an active session can be paused (else 409).
         */
        post: operations["sessions.pause"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{session_id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a session
         * @description Only a paused session can be resumed (else 409). No body.
         */
        post: operations["sessions.resume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Status of every service
         * @description One request crosses the gateway, Kafka and every service’s database and comes back; 503 names the services that did not answer in time. Needs the operator token when one is configured.
         */
        get: operations["operations.status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your API tokens
         * @description Newest first, never with a secret; revoked ones carry `revoked_at`.
         */
        get: operations["tokens.list"];
        put?: never;
        /**
         * Create an API token
         * @description The full token is in this response only.
         */
        post: operations["tokens.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tokens/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API token
         * @description Idempotent. Every gateway replica refuses the token within 5 seconds. Another member's token is a 404.
         */
        delete: operations["tokens.revoke"];
        options?: never;
        head?: never;
        /**
         * Rename an API token
         * @description Another member's token is a 404.
         */
        patch: operations["tokens.rename"];
        trace?: never;
    };
    "/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read your usage
         * @description Newest first; `meta.cursor` fetches the next page.
         */
        get: operations["usage.list"];
        put?: never;
        /**
         * Report usage
         * @description One usage record, or `{ usage: [...] }` with at most 100: what a model or tool call consumed (tokens, cost). All or nothing; retries with the same `provider` and `external_id` are deduplicated. 202 means stored.
         */
        post: operations["usage.report"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace's webhook endpoints
         * @description Oldest first, never with a secret. Owners and admins only; plain members get 403.
         */
        get: operations["webhookEndpoints.list"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description Messages of the named event types are POSTed to `url`, signed as Standard Webhooks. The secret is shown here and at rotation only. Owners and admins only; plain members get 403.
         */
        post: operations["webhookEndpoints.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpoint_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a webhook endpoint
         * @description Never with its secret. Owners and admins only; plain members get 403.
         */
        get: operations["webhookEndpoints.get"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Nothing more is sent to it; its delivery log goes with it. Owners and admins only; plain members get 403.
         */
        delete: operations["webhookEndpoints.remove"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description Only the fields given change; `enabled: true` resumes a disabled endpoint. Owners and admins only; plain members get 403.
         */
        patch: operations["webhookEndpoints.update"];
        trace?: never;
    };
    "/webhook-endpoints/{endpoint_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an endpoint's delivery log
         * @description Every attempt, newest first, kept 30 days. Owners and admins only; plain members get 403.
         */
        get: operations["webhookEndpoints.deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpoint_id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-send failed messages
         * @description Every message created since `since` whose latest attempt to this endpoint failed goes again, same webhook-id and body. Owners and admins only; plain members get 403.
         */
        post: operations["webhookEndpoints.recover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpoint_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook endpoint's secret
         * @description A new secret, shown once; for 24 hours every message carries a signature by the old one too. Owners and admins only; plain members get 403.
         */
        post: operations["webhookEndpoints.rotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpoint_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test message
         * @description A signed `webhook.test` message to this endpoint; its attempts appear in the log. Owners and admins only; plain members get 403.
         */
        post: operations["webhookEndpoints.test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-messages/{webhook_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay a webhook message
         * @description Sends the message again, same webhook-id and body, to every endpoint of the workspace it went to. Owners and admins only; plain members get 403.
         */
        post: operations["webhookMessages.replay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workspace": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the workspace’s settings
         * @description Owners. `require_two_factor`: `none`, `admins` or `all`; setting anything but `none` needs two-factor on for yourself. Browser sessions of the members it covers may only enrol (403 `TWO_FACTOR_REQUIRED`) until they have; API tokens are not affected.
         */
        patch: operations["twoFactor.updateWorkspace"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AcceptInviteDto: {
            display_name?: string | null;
            /**
             * @description The new member’s password: 12 to 256 characters.
             * @example correct horse battery staple
             */
            password: string;
            /**
             * @description IANA time zone name; UTC when absent.
             * @example Europe/Berlin
             */
            timezone?: string | null;
            /**
             * @description The `token` of the invite link.
             * @example 8Jd0b2m3Qx4Zr6Tt9LwKp1Vn5Hc7Ys0Ua2Ei4Og6Ik8
             */
            token: string;
        };
        /**
         * A batch of events
         * @description At most 100 events, stored all or nothing.
         */
        ActivityBatchDto: {
            events: components["schemas"]["ActivityEventDto"][];
        };
        /** One event */
        ActivityEventDto: {
            /**
             * @description What happened, e.g. `deploy`, `test_run`, `cron_job`.
             * @example deploy
             */
            event_type: string;
            /**
             * @description The client's stable id: retries with the same `source_type` and `external_id` are stored once.
             * @example deploy-api-1.42.0
             */
            external_id?: string | null;
            /**
             * Format: date-time
             * @description When it happened (RFC 3339 with an offset), at most 10 minutes in the future. Default: the time of receipt.
             * @example 2026-03-02T09:30:00Z
             */
            occurred_at?: string | null;
            /**
             * @description Opaque metadata: any JSON object of at most 32 KB (32768 bytes as UTF-8 JSON). Must not contain document bodies or secrets.
             * @example {
             *       "service": "api",
             *       "environment": "production",
             *       "version": "1.42.0"
             *     }
             */
            payload?: {
                [key: string]: unknown;
            } | null;
            /** @description Origin slug, e.g. `ci`, `desktop`. */
            source_type?: string | null;
        };
        ActivityRowBody: {
            /** @example pull_request.merged */
            event_type: string;
            in_session: number;
            outside_session: number;
            /** @example github */
            source_type: string;
        };
        AssignPlateDto: {
            /**
             * Format: uuid
             * @description A member of your workspace.
             */
            assignee_id: string;
            /**
             * Format: date
             * @description Default: the assignee's today in the assignee's timezone; earlier dates are PLATE_DATE_IN_PAST.
             */
            plate_date?: string | null;
            /**
             * @description What to do.
             * @example Review the release notes
             */
            title: string;
        };
        BrowserSessionBody: {
            /** Format: date-time */
            created_at: string;
            /** @description Whether this is the session of the calling access token. */
            current: boolean;
            /** Format: date-time */
            last_used_at: string;
            /** Format: uuid */
            sid: string;
            user_agent: string | null;
        };
        ChangePasswordDto: {
            /**
             * @description The password in use now.
             * @example correct horse battery staple
             */
            current_password: string;
            /**
             * @description 12 to 256 characters.
             * @example a longer passphrase than before
             */
            new_password: string;
        };
        CloseSessionDto: {
            /**
             * Format: date-time
             * @description Default now. Back-dates the close: at most 24 hours ago, not before started_at, not in the future (else 400); capped at started_at + the maximum session duration.
             */
            closed_at?: string | null;
            /**
             * @description Stored, not shown.
             * @example Fixed; the test was racing the session cache.
             */
            closing_note?: string | null;
        };
        CompletePlateItemDto: {
            /**
             * @description Only `true`: a done item stops counting towards the day.
             * @enum {boolean}
             */
            done: true;
        };
        ConnectorBody: {
            account: string | null;
            /** Format: uuid */
            connector_id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            created_by: string;
            /**
             * @description The report_only API token the connector writes with; it is among the member’s tokens, and revoking it stops the connector.
             * @example q2xak3v7
             */
            credential_token_id: string;
            /** @description The feed, reduced to scheme and host (calendar). */
            feed_url: string | null;
            /** @description Where the provider must POST its webhooks (github, slack). */
            hook_path: string | null;
            /** @enum {string} */
            kind: "github" | "slack" | "calendar";
            /** Format: date-time */
            last_delivery_at: string | null;
            last_error: string | null;
            /** Format: date-time */
            last_polled_at: string | null;
            /**
             * Format: uuid
             * @description Whose activity the connector reports.
             */
            member_id: string;
            /** @example Backend repository */
            name: string;
            poll_interval_seconds: number | null;
            /**
             * @description `unhealthy` with `last_error` when its feed or credential fails.
             * @enum {string}
             */
            status: "active" | "unhealthy";
        };
        CostBody: {
            /**
             * @description Exact decimal string.
             * @example 0.004215
             */
            amount: string;
            /** @enum {string} */
            currency: "USD";
        };
        /**
         * Cost
         * @description An exact amount: a decimal string with at most 9 decimals, never a JSON number.
         */
        CostDto: {
            /**
             * @description Decimal string, at most 9 decimals.
             * @example 0.004215
             */
            amount: string;
            /**
             * @description Always `USD`.
             * @example USD
             * @enum {string}
             */
            currency: "USD";
        };
        CreateConnectorDto: {
            /**
             * @description The provider account whose activity belongs to the member: a GitHub login or a Slack user id (U…). Without it every delivery is theirs (github, slack only).
             * @example octocat
             */
            account?: string | null;
            /** @description calendar: the ICS feed address (https, http or webcal). Stored encrypted; shown only as scheme and host. */
            feed_url?: string | null;
            /**
             * @description `github` (webhooks), `slack` (Events API) or `calendar` (an ICS feed, polled).
             * @enum {string}
             */
            kind: "github" | "slack" | "calendar";
            /**
             * Format: uuid
             * @description Whose activity this is. Default: you; another member of your workspace needs an owner or admin.
             */
            member_id?: string | null;
            /**
             * @description A label for you.
             * @example Backend repository
             */
            name: string;
            /** @description calendar: seconds between polls, 60–86400; default 300. */
            poll_interval_seconds?: number | null;
            /** @description github: the webhook secret; slack: the app signing secret. Stored encrypted, never returned. */
            secret?: string | null;
        };
        CreatedInviteBody: {
            /**
             * Format: uri
             * @description The one-time link (`<PUBLIC_URL>/accept-invite?token=…`), shown this once; mailed too when mail is configured.
             */
            accept_url: string;
            /** Format: email */
            email: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: uuid */
            invite_id: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        CreatedTokenBody: {
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When the token stops working (null: never).
             */
            expires_at: string | null;
            /**
             * Format: date-time
             * @description When the token was last used, to the minute.
             */
            last_used_at: string | null;
            /** @example CI deploys */
            name: string;
            /**
             * Format: date-time
             * @description Set once the token is revoked.
             */
            revoked_at: string | null;
            /** @enum {string} */
            scope: "full" | "report_only";
            /**
             * @description The full token, shown this once: `wt_<token id: 8 lowercase base32>_<secret: 43 base62>`. The example is a placeholder in capitals that no real token can have.
             * @example wt_EXAMPLE0_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
             */
            token: string;
            /**
             * @description The public id of the token.
             * @example k3v7q2xa
             */
            token_id: string;
        };
        CreateInviteDto: {
            /**
             * Format: email
             * @description Who to invite (compared case-insensitively).
             * @example grace@example.com
             */
            email: string;
            /** @description How long the link works: 1 to 168 hours, 72 when absent. */
            expires_in_hours?: number | null;
            /**
             * @description `member` when absent; admins invite members and admins, owners anyone.
             * @enum {string|null}
             */
            role?: "owner" | "admin" | "member" | null;
        };
        CreateTokenDto: {
            /**
             * @description The token stops working this many days after creation (1 to 365); never when absent.
             * @example 90
             */
            expires_in_days?: number | null;
            /**
             * @description A label to recognise the token by.
             * @example CI deploys
             */
            name: string;
            /**
             * @description `full` acts as the member in everything; `report_only` may only report its own sessions and activity, and read.
             * @enum {string}
             */
            scope: "full" | "report_only";
        };
        CreateWebhookEndpointDto: {
            /** @description A label for you. */
            description?: string | null;
            /**
             * @description 1 to 50 event types (no wildcards).
             * @example [
             *       "session.started",
             *       "session.closed"
             *     ]
             */
            event_types: ("session.started" | "session.paused" | "session.resumed" | "session.closed" | "plate.item.assigned" | "member.joined" | "member.deactivated" | "activity.event.linked")[];
            /**
             * @description Where messages are POSTed: https, no user info, at most 2,048 characters, never a private, loopback, link-local or metadata address (checked at every delivery).
             * @example https://hooks.example.com/worktrack
             */
            url: string;
        };
        DeliveryBody: {
            attempts: number;
            /** Format: uuid */
            delivery_id: string;
            /** @description Why it was ignored or failed, or what a retry waits for. */
            detail: string | null;
            events_accepted: number;
            /** @description Already stored earlier (redeliveries, retries). */
            events_deduplicated: number;
            events_mapped: number;
            /** Format: date-time */
            processed_at: string | null;
            /**
             * @description X-GitHub-Delivery, the Slack event_id, or `poll:<time>`.
             * @example 72d3162e-cc78-11e3-81ab-4c9367dc0958
             */
            provider_delivery_id: string;
            /**
             * @description The provider event (`push`, `message`, `poll`, …).
             * @example push
             */
            provider_event: string;
            /** Format: date-time */
            received_at: string;
            /** @description Slack's X-Slack-Retry-Num. */
            retry_num: number | null;
            /** @enum {string} */
            state: "pending" | "ingested" | "ignored" | "failed";
            /** @description The signature was checked (refused deliveries are answered 401 and not logged). */
            verified: boolean;
        };
        /**
         * @description Stable and machine-readable; clients branch on it, never on `message`.
         * @enum {string}
         */
        ErrorCode: "VALIDATION_FAILED" | "INVALID_JSON" | "PROTOTYPE_POISONING" | "PAYLOAD_TOO_LARGE" | "HEADERS_TOO_LARGE" | "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | "SESSION_NOT_FOUND" | "SESSION_STATE_CONFLICT" | "IDEMPOTENCY_KEY_REUSED" | "INVALID_CURSOR" | "ASSIGNEE_NOT_FOUND" | "PLATE_DATE_IN_PAST" | "PAYLOAD_CONTAINS_SECRET" | "RATE_LIMITED" | "UNSUPPORTED_MEDIA_TYPE" | "INTERNAL" | "UNAVAILABLE" | "INVALID_CREDENTIALS" | "SECOND_FACTOR_REQUIRED" | "TWO_FACTOR_REQUIRED" | "MEMBER_EXISTS";
        ErrorDetail: {
            /** @description What is wrong with it. */
            issue: string;
            /** @description The offending field, e.g. `events[3].event_type`. */
            path: string;
        };
        IngestedBody: {
            accepted: number;
            /** @description Events already stored under the same (source_type, external_id). */
            deduplicated: number;
            /** @description One per submitted event, in order; a duplicate gets the first stored id. */
            event_ids: string[];
        };
        InviteBody: {
            /** Format: email */
            email: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: uuid */
            invite_id: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        LoginDto: {
            /**
             * Format: email
             * @description The member’s email (compared case-insensitively).
             * @example ada@example.com
             */
            email: string;
            /**
             * @description The password (12 to 256 characters when set).
             * @example correct horse battery staple
             */
            password: string;
            /** @description One of the recovery codes, instead of `totp_code`; each works once. */
            recovery_code?: string | null;
            /**
             * @description The current 6-digit code of the authenticator app, when two-factor is on.
             * @example 123456
             */
            totp_code?: string | null;
        };
        ManagedMemberBody: {
            /** @description False once deactivated: its credentials are refused, nothing of it is deleted. */
            active: boolean;
            /** @example Ada Lovelace */
            display_name: string;
            /** Format: email */
            email: string | null;
            /** @enum {string} */
            kind: "human" | "agent";
            /** Format: uuid */
            member_id: string;
            /** @description Items a day on the plate. */
            plate_capacity: number;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            /**
             * @description IANA time zone name, e.g. `Europe/Berlin`.
             * @example Europe/Berlin
             */
            timezone: string;
            /** @description Per weekday, the working intervals (`HH:MM`, in `timezone`); `[]` for a day off. */
            working_hours: components["schemas"]["WorkingHours"];
            /** Format: uuid */
            workspace_id: string;
        };
        MemberBody: {
            /** @example Ada Lovelace */
            display_name: string;
            /** Format: email */
            email: string | null;
            /** @enum {string} */
            kind: "human" | "agent";
            /** Format: uuid */
            member_id: string;
            /** @description Items a day on the plate. */
            plate_capacity: number;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            /**
             * @description IANA time zone name, e.g. `Europe/Berlin`.
             * @example Europe/Berlin
             */
            timezone: string;
            /** @description Per weekday, the working intervals (`HH:MM`, in `timezone`); `[]` for a day off. */
            working_hours: components["schemas"]["WorkingHours"];
            /** Format: uuid */
            workspace_id: string;
        };
        ModelPriceBody: {
            /** @example 3.75 */
            cache_creation_input: string | null;
            /** @example 0.3 */
            cache_read_input: string | null;
            /** Format: date-time */
            effective_from: string;
            /** @example 3 */
            input: string;
            /** @example claude-sonnet-4* */
            model_pattern: string;
            /** @example 15 */
            output: string;
            /** @example anthropic */
            provider: string;
            /** @example 15 */
            reasoning_output: string | null;
        };
        /** A model price */
        ModelPriceDto: {
            /**
             * @description USD per million cache-write input tokens; default the input price.
             * @example 3.75
             */
            cache_creation_input?: string | null;
            /**
             * @description USD per million cache-read input tokens; default the input price.
             * @example 0.3
             */
            cache_read_input?: string | null;
            /**
             * Format: date-time
             * @description From when the price applies (by the record’s occurred_at).
             */
            effective_from: string;
            /**
             * @description USD per million input tokens (decimal string, at most 12 decimals).
             * @example 3
             */
            input: string;
            /**
             * @description The whole model name, `*` a wildcard; the most specific match wins (fewest `*`, then longest).
             * @example claude-sonnet-4*
             */
            model_pattern: string;
            /**
             * @description USD per million output tokens.
             * @example 15
             */
            output: string;
            /** @example anthropic */
            provider: string;
            /**
             * @description USD per million reasoning output tokens; default the output price.
             * @example 15
             */
            reasoning_output?: string | null;
        };
        ModelPriceListBody: {
            prices: components["schemas"]["ModelPriceBody"][];
        };
        /**
         * A price list
         * @description Replaces the whole list.
         */
        ModelPricesDto: {
            prices: components["schemas"]["ModelPriceDto"][];
        };
        PasswordChangedBody: {
            /** @description How many other browser sessions ended. */
            ended_sessions: number;
        };
        PauseSessionDto: {
            /**
             * @description Why the session is paused (stored, not shown).
             * @example Lunch break
             */
            pause_reason?: string | null;
        };
        PlateAssignmentBody: {
            /** @description Items on that day that are not done, this one included. */
            active_count: number;
            /** Format: uuid */
            assignee_id: string;
            /** @description The assignee's daily capacity. */
            capacity: number;
            /** @description True when the item landed on another day than the requested (or default) one. */
            overflowed: boolean;
            /**
             * Format: date
             * @description Where the item landed.
             */
            plate_date: string;
            /** Format: uuid */
            plate_item_id: string;
        };
        PlateDayBody: {
            active_count: number;
            capacity: number;
            /** Format: date */
            date: string;
            items: components["schemas"]["PlateItemBody"][];
        };
        PlateItemBody: {
            /**
             * Format: uuid
             * @description Who put the item on the plate.
             */
            assigned_by: string;
            /** Format: uuid */
            assignee_id: string;
            /** Format: date-time */
            created_at: string;
            done: boolean;
            /** Format: date-time */
            done_at: string | null;
            /** Format: date */
            plate_date: string;
            /** Format: uuid */
            plate_item_id: string;
            /** @example Review the release notes */
            title: string;
        };
        PlateRowBody: {
            /** @description Items whose plate date is that day. */
            assigned: number;
            /** Format: uuid */
            assignee_id: string;
            capacity: number;
            /** Format: date */
            day: string;
            done: number;
            /** @description Items that landed there though asked for an earlier day. */
            overflowed_in: number;
            /** @description Items asked for that day that landed later. */
            overflowed_out: number;
        };
        RecoverWebhookMessagesDto: {
            /**
             * Format: date-time
             * @description Re-send every message created since then whose latest attempt failed (RFC 3339 with an offset).
             */
            since: string;
        };
        RecoveryCodesBody: {
            /**
             * @description Ten one-time codes for when the authenticator is lost, shown this once.
             * @example [
             *       "k3v7q-2xa9m",
             *       "p4r8t-6bn2c"
             *     ]
             */
            recovery_codes: string[];
        };
        RegisterAgentDto: {
            /**
             * @description The agent's display name.
             * @example Release bot
             */
            name: string;
            /**
             * @description The scope of the agent's token; default `report_only`.
             * @enum {string|null}
             */
            scope?: "full" | "report_only" | null;
        };
        RegisteredAgentBody: {
            agent: components["schemas"]["MemberBody"];
            /**
             * @description The agent's API token, shown this once: `wt_<token id: 8 lowercase base32>_<secret: 43 base62>`. The example is a placeholder in capitals that no real token can have.
             * @example wt_EXAMPLE0_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
             */
            token: string;
        };
        RenameTokenDto: {
            /**
             * @description A new label for the token.
             * @example CI deploys (prod)
             */
            name: string;
        };
        ReportGroupBody: {
            /** Format: date */
            day?: string;
            /** Format: uuid */
            goal_id?: string | null;
            /** Format: uuid */
            member_id?: string;
            /** @enum {string} */
            member_kind?: "human" | "agent";
            /** Format: uuid */
            project_id?: string | null;
            /**
             * Format: date
             * @description The ISO week's Monday.
             */
            week?: string;
            /** @enum {string|null} */
            work_type?: "intentional" | "reactive" | null;
        };
        ReportMetricsBody: {
            input_tokens: number;
            linked_event_count: number;
            output_tokens: number;
            /** @description Events no session covers. */
            outside_session_event_count: number;
            paused_seconds: number;
            /** @description Sessions counted once, on the day they started. */
            session_count: number;
            /** @description Active time, pauses excluded, in whole seconds. */
            tracked_seconds: number;
            /**
             * @description USD, exact decimal string; "0" when none.
             * @example 1.25
             */
            usage_cost: string;
        };
        ReportSessionRowBody: {
            /** Format: date-time */
            closed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            goal_id: string | null;
            /** @example Fix the flaky login test */
            intent_text: string;
            linked_event_count: number;
            /** Format: uuid */
            member_id: string;
            paused_seconds: number;
            /** Format: uuid */
            project_id: string | null;
            /** Format: uuid */
            session_id: string;
            /** @enum {string} */
            source: "timer" | "manual";
            /** Format: date-time */
            started_at: string;
            /** @enum {string} */
            state: "active" | "paused" | "closed";
            tracked_seconds: number;
            /** @example 0.42 */
            usage_cost: string;
            /**
             * @example [
             *       "billing"
             *     ]
             */
            user_tags: string[];
            /** @enum {string} */
            work_type: "intentional" | "reactive";
        };
        SessionBody: {
            /**
             * Format: date-time
             * @description Null while the session is live.
             */
            closed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: uuid */
            goal_id: string | null;
            /**
             * @description What the member is working on.
             * @example Fix the flaky login test
             */
            intent_text: string;
            /**
             * @description Whole seconds paused; up to now while paused.
             * @example 60
             */
            paused_seconds: number;
            /** Format: uuid */
            project_id: string | null;
            /** Format: uuid */
            session_id: string;
            /** @enum {string} */
            source: "timer" | "manual";
            /** Format: date-time */
            started_at: string;
            /** @enum {string} */
            state: "active" | "paused" | "closed";
            /**
             * @description Whole seconds active, pauses excluded; up to now while live.
             * @example 3540
             */
            tracked_seconds: number;
            /**
             * @description Default `[]`.
             * @example [
             *       "backend"
             *     ]
             */
            user_tags: string[];
            /**
             * @description `intentional` unless set otherwise.
             * @enum {string}
             */
            work_type: "intentional" | "reactive";
        };
        SignedInBody: {
            /**
             * @description A session JWT (ES256, at most 10 minutes): send it as `Authorization: Bearer …`.
             * @example eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl
             */
            access_token: string;
            /** @description Seconds until the access token expires. */
            expires_in: number;
            member: components["schemas"]["MemberBody"];
            /** @enum {string} */
            token_type: "Bearer";
        };
        SignedOutBody: {
            /** @description Whether a browser session ended (false: the cookie named none that was on). */
            signed_out: boolean;
        };
        StartSessionDto: {
            /**
             * Format: date-time
             * @description Required when source is `manual`: after started_at, at most 1 minute in the future, at most the maximum session duration (12 hours) after started_at.
             */
            ended_at?: string | null;
            /** @description Minutes. */
            estimated_duration_min?: number | null;
            /** Format: uuid */
            goal_id?: string | null;
            /** @description Scoped to the member and kept forever. A retry with the same key and body answers 201 with the session as it is now; another body is 409 IDEMPOTENCY_KEY_REUSED. */
            idempotency_key?: string | null;
            /**
             * @description What the member is working on.
             * @example Fix the flaky login test
             */
            intent_text: string;
            /** Format: uuid */
            project_id?: string | null;
            /**
             * @description `timer` starts a live session now and closes the previous live one; `manual` records a finished block.
             * @enum {string}
             */
            source: "timer" | "manual";
            /**
             * Format: date-time
             * @description Required when source is `manual` (RFC 3339 with an offset); not for `timer`.
             */
            started_at?: string | null;
            /** Format: uuid */
            task_id?: string | null;
            /**
             * @description Labels of your own: at most 20 distinct tags of 1 to 64 characters.
             * @example [
             *       "billing",
             *       "urgent"
             *     ]
             */
            user_tags?: string[] | null;
            /**
             * @description What kind of work: planned (`intentional`, the default) or answering something that came up (`reactive`).
             * @enum {string|null}
             */
            work_type?: "intentional" | "reactive" | null;
        };
        StoredEventBody: {
            /** Format: uuid */
            event_id: string;
            /** @example deploy */
            event_type: string;
            /** @example deploy-api-1.42.0 */
            external_id: string | null;
            /** Format: date-time */
            occurred_at: string;
            /**
             * @description Opaque metadata as submitted.
             * @example {
             *       "service": "api",
             *       "environment": "production",
             *       "version": "1.42.0"
             *     }
             */
            payload: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            received_at: string;
            /**
             * Format: uuid
             * @description The correlated session; null until correlated or when none covers the event.
             */
            session_id: string | null;
            /** @example ci */
            source_type: string;
        };
        StoredUsageBody: {
            /**
             * @example {
             *       "agent": "triage-bot"
             *     }
             */
            attributes: {
                [key: string]: unknown;
            };
            cache_creation_input_tokens: number | null;
            cache_read_input_tokens: number | null;
            /** @example conv_5f2a */
            conversation_id: string | null;
            /** @description Null when `cost_source` is `none`. */
            cost: components["schemas"]["CostBody"] | null;
            /**
             * @description `reported` (sent with the record), `computed` (from the price list at receipt) or `none` (no price matched).
             * @enum {string}
             */
            cost_source: "reported" | "computed" | "none";
            duration_ms: number | null;
            /** @example msg_01XFDUDYJgAACzvnptvVoYEL */
            external_id: string;
            input_tokens: number | null;
            /** @example claude-sonnet-4-5 */
            model: string | null;
            /** Format: date-time */
            occurred_at: string;
            /** @example chat */
            operation: string;
            output_tokens: number | null;
            /** @example anthropic */
            provider: string;
            reasoning_output_tokens: number | null;
            /** Format: date-time */
            received_at: string;
            /**
             * Format: uuid
             * @description The session named by the record, else the one correlation linked (null until linked or when none covers it).
             */
            session_id: string | null;
            /** @example web_search */
            tool_name: string | null;
            /** Format: uuid */
            usage_id: string;
        };
        SummaryRowBody: {
            /** @description The keys of the requested `group_by`. */
            group: components["schemas"]["ReportGroupBody"];
            input_tokens: number;
            linked_event_count: number;
            output_tokens: number;
            /** @description Events no session covers. */
            outside_session_event_count: number;
            paused_seconds: number;
            /** @description Sessions counted once, on the day they started. */
            session_count: number;
            /** @description Active time, pauses excluded, in whole seconds. */
            tracked_seconds: number;
            /**
             * @description USD, exact decimal string; "0" when none.
             * @example 1.25
             */
            usage_cost: string;
        };
        TokenBody: {
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When the token stops working (null: never).
             */
            expires_at: string | null;
            /**
             * Format: date-time
             * @description When the token was last used, to the minute.
             */
            last_used_at: string | null;
            /** @example CI deploys */
            name: string;
            /**
             * Format: date-time
             * @description Set once the token is revoked.
             */
            revoked_at: string | null;
            /** @enum {string} */
            scope: "full" | "report_only";
            /**
             * @description The public id of the token.
             * @example k3v7q2xa
             */
            token_id: string;
        };
        TotpCodeDto: {
            /**
             * @description The current 6-digit code of the authenticator app.
             * @example 492039
             */
            code: string;
        };
        TotpEnrolmentBody: {
            /**
             * Format: uri
             * @description The `otpauth://` URI to show as a QR code.
             * @example otpauth://totp/worktrack:ada%40example.com?issuer=worktrack&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30
             */
            otpauth_uri: string;
            /**
             * @description The new secret (base32), for authenticator apps that take it typed.
             * @example JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP
             */
            secret: string;
        };
        TotpStateBody: {
            /** @enum {string} */
            totp: "on" | "off";
        };
        UpdateMeDto: {
            /**
             * @description The name teammates see.
             * @example Ada L.
             */
            display_name?: string | null;
            /**
             * @description IANA time zone name, e.g. `Asia/Tokyo`. Date filters, plate days and "today" follow it from the next request.
             * @example Asia/Tokyo
             */
            timezone?: string | null;
            /** @description Per weekday, the working intervals (`HH:MM`, in `timezone`, in order, not overlapping); `[]` for a day off. */
            working_hours?: components["schemas"]["WorkingHours"] | null;
        };
        UpdateMemberDto: {
            /**
             * @description Items a day on the member's plate; applies to later assignments.
             * @example 8
             */
            plate_capacity?: number | null;
            /**
             * @description Only an owner may make or unmake an owner; a workspace keeps at least one active owner; agents stay `member`.
             * @enum {string|null}
             */
            role?: "owner" | "admin" | "member" | null;
        };
        UpdateWebhookEndpointDto: {
            /** @description A label for you. */
            description?: string | null;
            /** @description false stops deliveries; true resumes them (and clears `disabled_reason`). */
            enabled?: boolean | null;
            /** @description 1 to 50 event types; replaces the list. */
            event_types?: ("session.started" | "session.paused" | "session.resumed" | "session.closed" | "plate.item.assigned" | "member.joined" | "member.deactivated" | "activity.event.linked")[] | null;
            /** @description Where messages are POSTed: https, no user info, at most 2,048 characters, never a private, loopback, link-local or metadata address (checked at every delivery). */
            url?: string | null;
        };
        UpdateWorkspaceDto: {
            /**
             * @description Whose browser sessions must have two-factor on: nobody, owners and admins, or everyone.
             * @enum {string}
             */
            require_two_factor: "none" | "admins" | "all";
        };
        /**
         * A batch of usage records
         * @description At most 100 records, stored all or nothing.
         */
        UsageBatchDto: {
            usage: components["schemas"]["UsageRecordDto"][];
        };
        UsageIngestedBody: {
            accepted: number;
            /** @description Records already stored under the same (provider, external_id). */
            deduplicated: number;
            /** @description One per submitted record, in order; a duplicate gets the first stored id. */
            usage_ids: string[];
        };
        /** One usage record */
        UsageRecordDto: {
            /**
             * @description Metadata only, at most 8192 bytes as UTF-8 JSON: no secrets, and none of the content keys `gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, `prompt`, `completion`, `messages` at any depth.
             * @example {
             *       "gen_ai.request.temperature": 0.2,
             *       "agent": "triage-bot"
             *     }
             */
            attributes?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Input tokens written to the provider cache (`gen_ai.usage.cache_creation.input_tokens`), part of `input_tokens` (an integer 0 .. 2,000,000,000).
             * @example 1200
             */
            cache_creation_input_tokens?: number | null;
            /**
             * @description Input tokens read from the provider cache (`gen_ai.usage.cache_read.input_tokens`), part of `input_tokens` (an integer 0 .. 2,000,000,000).
             * @example 1200
             */
            cache_read_input_tokens?: number | null;
            /**
             * @description The conversation (`gen_ai.conversation.id`).
             * @example conv_5f2a
             */
            conversation_id?: string | null;
            /** @description The cost as the provider billed it; without it the workspace price list computes one at receipt. */
            cost?: components["schemas"]["CostDto"] | null;
            /**
             * @description How long the call took, in milliseconds (0 .. 86,400,000).
             * @example 2300
             */
            duration_ms?: number | null;
            /**
             * @description The provider's response or message id: retries with the same `provider` and `external_id` are stored once, forever.
             * @example msg_01XFDUDYJgAACzvnptvVoYEL
             */
            external_id: string;
            /**
             * @description Input tokens (`gen_ai.usage.input_tokens`), cache reads and writes included (an integer 0 .. 2,000,000,000).
             * @example 1200
             */
            input_tokens?: number | null;
            /**
             * @description The model (`gen_ai.response.model`); required unless `operation` is `execute_tool`.
             * @example claude-sonnet-4-5
             */
            model?: string | null;
            /**
             * Format: date-time
             * @description When it happened (RFC 3339 with an offset), at most 10 minutes ahead. Default: the time of receipt.
             */
            occurred_at?: string | null;
            /** @description The operation (`gen_ai.operation.name`), e.g. `chat`, `embeddings`, `execute_tool`. */
            operation?: string | null;
            /**
             * @description Output tokens (`gen_ai.usage.output_tokens`), reasoning included (an integer 0 .. 2,000,000,000).
             * @example 1200
             */
            output_tokens?: number | null;
            /**
             * @description Provider slug (`gen_ai.provider.name`), e.g. `anthropic`, `openai`.
             * @example anthropic
             */
            provider: string;
            /**
             * @description Reasoning tokens (`gen_ai.usage.reasoning.output_tokens`), part of `output_tokens` (an integer 0 .. 2,000,000,000).
             * @example 1200
             */
            reasoning_output_tokens?: number | null;
            /**
             * Format: uuid
             * @description One of the caller's own sessions: the record is linked to it, whatever its time would link it to.
             */
            session_id?: string | null;
            /**
             * @description The tool called (`gen_ai.tool.name`).
             * @example web_search
             */
            tool_name?: string | null;
        };
        WebhookAckBody: {
            /** Format: uuid */
            delivery_id: string | null;
            /**
             * @description `accepted`: logged, events follow asynchronously; `ignored`: logged, nothing to write.
             * @enum {string}
             */
            outcome: "accepted" | "ignored";
        };
        WebhookAttemptBody: {
            /** Format: uuid */
            attempt_id: string;
            /** Format: date-time */
            attempted_at: string;
            duration_ms: number;
            /**
             * Format: date-time
             * @description When the next attempt goes; null when none will.
             */
            next_attempt_at: string | null;
            /** @enum {string} */
            outcome: "succeeded" | "failed";
            /** @description null when no answer came (timeout, refused address, connection error). */
            status_code: number | null;
            /** @example session.started */
            type: string;
            /**
             * @description The same on every attempt and replay of a message.
             * @example msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90
             */
            webhook_id: string;
        };
        WebhookEndpointBody: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            /** @example the endpoint answered 410 Gone */
            disabled_reason: string | null;
            /** @description false after a 410, 5 days of failures, or a PATCH. */
            enabled: boolean;
            /** Format: uuid */
            endpoint_id: string;
            event_types: ("session.started" | "session.paused" | "session.resumed" | "session.closed" | "plate.item.assigned" | "member.joined" | "member.deactivated" | "activity.event.linked")[];
            /** @example https://hooks.example.com/worktrack */
            url: string;
        };
        WebhookEndpointWithSecretBody: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            /** @example the endpoint answered 410 Gone */
            disabled_reason: string | null;
            /** @description false after a 410, 5 days of failures, or a PATCH. */
            enabled: boolean;
            /** Format: uuid */
            endpoint_id: string;
            event_types: ("session.started" | "session.paused" | "session.resumed" | "session.closed" | "plate.item.assigned" | "member.joined" | "member.deactivated" | "activity.event.linked")[];
            /**
             * @description The signing secret (`whsec_` + base64 of 32 bytes), shown only at creation and rotation.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
            /** @example https://hooks.example.com/worktrack */
            url: string;
        };
        WebhookResendBody: {
            /** @description Deliveries queued again. */
            messages: number;
        };
        WebhookTestBody: {
            /** @example msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90 */
            webhook_id: string;
        };
        /**
         * @example {
         *       "mon": [
         *         {
         *           "start": "09:00",
         *           "end": "12:30"
         *         },
         *         {
         *           "start": "13:30",
         *           "end": "17:30"
         *         }
         *       ],
         *       "tue": [
         *         {
         *           "start": "09:00",
         *           "end": "12:30"
         *         },
         *         {
         *           "start": "13:30",
         *           "end": "17:30"
         *         }
         *       ],
         *       "wed": [
         *         {
         *           "start": "09:00",
         *           "end": "12:30"
         *         },
         *         {
         *           "start": "13:30",
         *           "end": "17:30"
         *         }
         *       ],
         *       "thu": [
         *         {
         *           "start": "09:00",
         *           "end": "12:30"
         *         },
         *         {
         *           "start": "13:30",
         *           "end": "17:30"
         *         }
         *       ],
         *       "fri": [
         *         {
         *           "start": "09:00",
         *           "end": "15:00"
         *         }
         *       ],
         *       "sat": [],
         *       "sun": []
         *     }
         */
        WorkingHours: {
            fri: components["schemas"]["WorkingInterval"][];
            mon: components["schemas"]["WorkingInterval"][];
            sat: components["schemas"]["WorkingInterval"][];
            sun: components["schemas"]["WorkingInterval"][];
            thu: components["schemas"]["WorkingInterval"][];
            tue: components["schemas"]["WorkingInterval"][];
            wed: components["schemas"]["WorkingInterval"][];
        };
        /**
         * @example {
         *       "start": "09:00",
         *       "end": "17:30"
         *     }
         */
        WorkingInterval: {
            end: string;
            start: string;
        };
        WorkspaceBody: {
            /** @example Acme */
            name: string;
            /** @enum {string} */
            require_two_factor: "none" | "admins" | "all";
            /** Format: uuid */
            workspace_id: string;
        };
    };
    responses: never;
    parameters: {
        /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
        RequestId: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "jwks.jwks": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key set. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "EC",
                     *           "crv": "P-256",
                     *           "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                     *           "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
                     *           "kid": "2026-11",
                     *           "alg": "ES256",
                     *           "use": "sig"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        keys: {
                            /** @enum {string} */
                            alg: "ES256";
                            /** @enum {string} */
                            crv: "P-256";
                            /** @example 2026-11 */
                            kid: string;
                            /** @enum {string} */
                            kty: "EC";
                            /** @enum {string} */
                            use: "sig";
                            /** @example f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU */
                            x: string;
                            /** @example x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0 */
                            y: string;
                        }[];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "INVALID_JSON" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "activity.timeline": {
        parameters: {
            query?: {
                cursor?: string;
                event_type?: string;
                from?: string;
                limit?: number;
                session_id?: string;
                source_type?: string;
                to?: string;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events, newest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "event_id": "57c7c826-7db4-42c8-af1d-3ecdfe37182f",
                     *           "source_type": "ci",
                     *           "event_type": "deploy",
                     *           "occurred_at": "2026-03-02T09:30:00Z",
                     *           "received_at": "2026-03-02T09:30:00Z",
                     *           "payload": {
                     *             "service": "api",
                     *             "environment": "production",
                     *             "version": "1.42.0"
                     *           },
                     *           "external_id": "deploy-api-1.42.0",
                     *           "session_id": null
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["StoredEventBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "activity.ingest": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActivityEventDto"] | components["schemas"]["ActivityBatchDto"];
            };
        };
        responses: {
            /** @description Stored: one id per submitted event, in order. */
            202: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "accepted": 1,
                     *         "deduplicated": 1,
                     *         "event_ids": [
                     *           "fbf05cc7-f100-4082-a87e-401f828ffaf6"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["IngestedBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `PAYLOAD_CONTAINS_SECRET`: An event payload holds something that looks like a secret; `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "PAYLOAD_CONTAINS_SECRET" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "agents.register": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Release bot"
                 *     }
                 */
                "application/json": components["schemas"]["RegisterAgentDto"];
            };
        };
        responses: {
            /** @description The agent and its token, shown this once. */
            201: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "agent": {
                     *           "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *           "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *           "kind": "human",
                     *           "role": "owner",
                     *           "display_name": "Ada Lovelace",
                     *           "email": null,
                     *           "timezone": "Europe/Berlin",
                     *           "working_hours": {
                     *             "mon": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "tue": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "wed": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "thu": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "fri": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "15:00"
                     *               }
                     *             ],
                     *             "sat": [],
                     *             "sun": []
                     *           },
                     *           "plate_capacity": 1
                     *         },
                     *         "token": "wt_EXAMPLE0_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["RegisteredAgentBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "signIn.acceptInvite": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "8Jd0b2m3Qx4Zr6Tt9LwKp1Vn5Hc7Ys0Ua2Ei4Og6Ik8",
                 *       "password": "correct horse battery staple",
                 *       "timezone": "Europe/Berlin"
                 *     }
                 */
                "application/json": components["schemas"]["AcceptInviteDto"];
            };
        };
        responses: {
            /** @description Signed in as the new member; the refresh cookie is set. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *         "token_type": "Bearer",
                     *         "expires_in": 1,
                     *         "member": {
                     *           "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *           "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *           "kind": "human",
                     *           "role": "owner",
                     *           "display_name": "Ada Lovelace",
                     *           "email": null,
                     *           "timezone": "Europe/Berlin",
                     *           "working_hours": {
                     *             "mon": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "tue": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "wed": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "thu": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "fri": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "15:00"
                     *               }
                     *             ],
                     *             "sat": [],
                     *             "sun": []
                     *           },
                     *           "plate_capacity": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SignedInBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             *     - `INVALID_CREDENTIALS`: The email and password (or the invite, or the refresh cookie) do not sign anyone in; the same answer whatever was wrong.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED" | "INVALID_CREDENTIALS";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Conflict with the current state.
             *     - `MEMBER_EXISTS`: The email already belongs to an active member of the workspace.
             */
            409: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "MEMBER_EXISTS";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "signIn.login": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple",
                 *       "totp_code": "123456"
                 *     }
                 */
                "application/json": components["schemas"]["LoginDto"];
            };
        };
        responses: {
            /** @description Signed in; the refresh cookie is set. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *         "token_type": "Bearer",
                     *         "expires_in": 1,
                     *         "member": {
                     *           "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *           "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *           "kind": "human",
                     *           "role": "owner",
                     *           "display_name": "Ada Lovelace",
                     *           "email": null,
                     *           "timezone": "Europe/Berlin",
                     *           "working_hours": {
                     *             "mon": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "tue": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "wed": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "thu": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "fri": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "15:00"
                     *               }
                     *             ],
                     *             "sat": [],
                     *             "sun": []
                     *           },
                     *           "plate_capacity": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SignedInBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             *     - `INVALID_CREDENTIALS`: The email and password (or the invite, or the refresh cookie) do not sign anyone in; the same answer whatever was wrong.
             *     - `SECOND_FACTOR_REQUIRED`: The member has two-factor on: send `totp_code` or `recovery_code` with the password.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED" | "INVALID_CREDENTIALS" | "SECOND_FACTOR_REQUIRED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "signIn.logout": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "signed_out": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SignedOutBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "signIn.refresh": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A new access token; the refresh cookie is replaced. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *         "token_type": "Bearer",
                     *         "expires_in": 1,
                     *         "member": {
                     *           "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *           "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *           "kind": "human",
                     *           "role": "owner",
                     *           "display_name": "Ada Lovelace",
                     *           "email": null,
                     *           "timezone": "Europe/Berlin",
                     *           "working_hours": {
                     *             "mon": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "tue": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "wed": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "thu": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "12:30"
                     *               },
                     *               {
                     *                 "start": "13:30",
                     *                 "end": "17:30"
                     *               }
                     *             ],
                     *             "fri": [
                     *               {
                     *                 "start": "09:00",
                     *                 "end": "15:00"
                     *               }
                     *             ],
                     *             "sat": [],
                     *             "sun": []
                     *           },
                     *           "plate_capacity": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SignedInBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "signIn.sessions": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Your browser sessions. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "sid": "34b36454-cab2-4784-ac38-9f7d88ecb7df",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "last_used_at": "2026-03-02T09:30:00Z",
                     *           "user_agent": null,
                     *           "current": false
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["BrowserSessionBody"][];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "signIn.end": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The browser session (the `sid` of its access tokens).
                 * @example 34b36454-cab2-4784-ac38-9f7d88ecb7df
                 */
                sid: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session, ended. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "sid": "34b36454-cab2-4784-ac38-9f7d88ecb7df",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "last_used_at": "2026-03-02T09:30:00Z",
                     *         "user_agent": null,
                     *         "current": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["BrowserSessionBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "connectors.list": {
        parameters: {
            query?: {
                /** @description The `meta.cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of connectors, oldest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "connector_id": "e8699882-7ae1-4f08-a801-0e98875e0256",
                     *           "kind": "github",
                     *           "name": "Backend repository",
                     *           "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *           "created_by": "117dbb19-db72-4b17-a98e-4ef1274d5981",
                     *           "account": null,
                     *           "status": "active",
                     *           "last_error": null,
                     *           "hook_path": null,
                     *           "feed_url": null,
                     *           "poll_interval_seconds": null,
                     *           "credential_token_id": "q2xak3v7",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "last_delivery_at": null,
                     *           "last_polled_at": null
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ConnectorBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "connectors.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "github",
                 *       "name": "Backend repository",
                 *       "account": "octocat"
                 *     }
                 */
                "application/json": components["schemas"]["CreateConnectorDto"];
            };
        };
        responses: {
            /** @description The connector. */
            201: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "connector_id": "e8699882-7ae1-4f08-a801-0e98875e0256",
                     *         "kind": "github",
                     *         "name": "Backend repository",
                     *         "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *         "created_by": "117dbb19-db72-4b17-a98e-4ef1274d5981",
                     *         "account": null,
                     *         "status": "active",
                     *         "last_error": null,
                     *         "hook_path": null,
                     *         "feed_url": null,
                     *         "poll_interval_seconds": null,
                     *         "credential_token_id": "q2xak3v7",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "last_delivery_at": null,
                     *         "last_polled_at": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ConnectorBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "connectors.remove": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The connector id (a UUID).
                 * @example e8699882-7ae1-4f08-a801-0e98875e0256
                 */
                connector_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connector, as it was. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "connector_id": "e8699882-7ae1-4f08-a801-0e98875e0256",
                     *         "kind": "github",
                     *         "name": "Backend repository",
                     *         "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *         "created_by": "117dbb19-db72-4b17-a98e-4ef1274d5981",
                     *         "account": null,
                     *         "status": "active",
                     *         "last_error": null,
                     *         "hook_path": null,
                     *         "feed_url": null,
                     *         "poll_interval_seconds": null,
                     *         "credential_token_id": "q2xak3v7",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "last_delivery_at": null,
                     *         "last_polled_at": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ConnectorBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "connectors.deliveries": {
        parameters: {
            query?: {
                /** @description `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description Page size, 1–100; default 50. */
                limit?: number;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The connector id (a UUID).
                 * @example e8699882-7ae1-4f08-a801-0e98875e0256
                 */
                connector_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries, newest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "delivery_id": "3a33c056-f8a4-41d0-abde-19d654627447",
                     *           "provider_delivery_id": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
                     *           "provider_event": "push",
                     *           "received_at": "2026-03-02T09:30:00Z",
                     *           "verified": false,
                     *           "state": "pending",
                     *           "events_mapped": 1,
                     *           "events_accepted": 1,
                     *           "events_deduplicated": 1,
                     *           "detail": null,
                     *           "attempts": 1,
                     *           "retry_num": null,
                     *           "processed_at": null
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["DeliveryBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "operations.healthz": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "status": "ok"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** @enum {string} */
                            status: "ok";
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "hooks.github": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The connector id (a UUID).
                 * @example e8699882-7ae1-4f08-a801-0e98875e0256
                 */
                connector_id: string;
            };
            cookie?: never;
        };
        /** @description The delivery as GitHub sends it (`application/json`; a form-encoded `payload=` is accepted too). */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "ref": "refs/heads/main",
                 *       "before": "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
                 *       "after": "59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5",
                 *       "repository": {
                 *         "id": 1296269,
                 *         "full_name": "octocat/Hello-World"
                 *       },
                 *       "pusher": {
                 *         "name": "octocat"
                 *       },
                 *       "commits": [
                 *         {
                 *           "id": "59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5",
                 *           "message": "Fix the flaky login test"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Verified and logged; events follow asynchronously. */
            202: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "outcome": "accepted",
                     *         "delivery_id": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookAckBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "INVALID_JSON" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "hooks.slack": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The connector id (a UUID).
                 * @example e8699882-7ae1-4f08-a801-0e98875e0256
                 */
                connector_id: string;
            };
            cookie?: never;
        };
        /** @description The Events API callback as Slack sends it. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "Jhj5dZrVaK7ZwHHjRyZWjbDl",
                 *       "team_id": "T0001",
                 *       "api_app_id": "A0001",
                 *       "type": "event_callback",
                 *       "event_id": "Ev0PV52K21",
                 *       "event_time": 1772443800,
                 *       "event": {
                 *         "type": "message",
                 *         "channel": "C2147483705",
                 *         "user": "U2147483697",
                 *         "ts": "1772443800.000200"
                 *       }
                 *     }
                 */
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Verified and logged; for a `url_verification` callback, the challenge echoed instead. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "outcome": "accepted",
                     *         "delivery_id": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookAckBody"];
                    } | {
                        /**
                         * @description The `challenge` Slack sent.
                         * @example 3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P
                         */
                        challenge: string;
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "INVALID_JSON" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "invites.list": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Pending invites. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "invite_id": "88bd60cf-2ecc-4045-a354-2fbe824dfc1f",
                     *           "email": "ada@example.com",
                     *           "role": "owner",
                     *           "expires_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["InviteBody"][];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "invites.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "grace@example.com"
                 *     }
                 */
                "application/json": components["schemas"]["CreateInviteDto"];
            };
        };
        responses: {
            /** @description The invite, with its link shown this once. */
            201: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "invite_id": "88bd60cf-2ecc-4045-a354-2fbe824dfc1f",
                     *         "email": "ada@example.com",
                     *         "role": "owner",
                     *         "expires_at": "2026-03-02T09:30:00Z",
                     *         "accept_url": "https://calendar.example.org/team.ics"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["CreatedInviteBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Conflict with the current state.
             *     - `MEMBER_EXISTS`: The email already belongs to an active member of the workspace.
             */
            409: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "MEMBER_EXISTS";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "invites.withdraw": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The invite id (a UUID).
                 * @example 88bd60cf-2ecc-4045-a354-2fbe824dfc1f
                 */
                invite_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invite, withdrawn. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "invite_id": "88bd60cf-2ecc-4045-a354-2fbe824dfc1f",
                     *         "email": "ada@example.com",
                     *         "role": "owner",
                     *         "expires_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["InviteBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "mcp.post": {
        parameters: {
            query?: never;
            header: {
                /** @description The MCP streamable HTTP transport requires both types. */
                Accept: string;
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "jsonrpc": "2.0",
                 *       "id": 1,
                 *       "method": "tools/call",
                 *       "params": {
                 *         "name": "start_session",
                 *         "arguments": {
                 *           "intent_text": "Fix the flaky login test"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    error?: {
                        [key: string]: unknown;
                    };
                    id?: string | number;
                    /** @enum {string} */
                    jsonrpc: "2.0";
                    /** @example tools/call */
                    method?: string;
                    params?: {
                        [key: string]: unknown;
                    };
                    result?: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The JSON-RPC response. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": 1,
                     *       "result": {
                     *         "content": [
                     *           {
                     *             "type": "text",
                     *             "text": "{\"session_id\":\"0b7f3c52-8c1e-4f0e-9a55-3e1f9b0c2d41\",\"status\":\"active\"}"
                     *           }
                     *         ],
                     *         "structuredContent": {
                     *           "session_id": "0b7f3c52-8c1e-4f0e-9a55-3e1f9b0c2d41",
                     *           "status": "active"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        error?: {
                            [key: string]: unknown;
                        };
                        id?: string | number;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        /** @example tools/call */
                        method?: string;
                        params?: {
                            [key: string]: unknown;
                        };
                        result?: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A notification or response was accepted; nothing to answer. */
            202: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "me.me": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *         "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *         "kind": "human",
                     *         "role": "owner",
                     *         "display_name": "Ada Lovelace",
                     *         "email": null,
                     *         "timezone": "Europe/Berlin",
                     *         "working_hours": {
                     *           "mon": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "tue": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "wed": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "thu": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "fri": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "15:00"
                     *             }
                     *           ],
                     *           "sat": [],
                     *           "sun": []
                     *         },
                     *         "plate_capacity": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["MemberBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "me.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "timezone": "Asia/Tokyo",
                 *       "display_name": "Ada L."
                 *     }
                 */
                "application/json": components["schemas"]["UpdateMeDto"];
            };
        };
        responses: {
            /** @description The updated profile. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *         "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *         "kind": "human",
                     *         "role": "owner",
                     *         "display_name": "Ada Lovelace",
                     *         "email": null,
                     *         "timezone": "Europe/Berlin",
                     *         "working_hours": {
                     *           "mon": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "tue": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "wed": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "thu": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "fri": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "15:00"
                     *             }
                     *           ],
                     *           "sat": [],
                     *           "sun": []
                     *         },
                     *         "plate_capacity": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["MemberBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "signIn.changePassword": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "current_password": "correct horse battery staple",
                 *       "new_password": "a longer passphrase than before"
                 *     }
                 */
                "application/json": components["schemas"]["ChangePasswordDto"];
            };
        };
        responses: {
            /** @description Changed. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "ended_sessions": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PasswordChangedBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "twoFactor.start": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The secret, shown this once. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "secret": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
                     *         "otpauth_uri": "otpauth://totp/worktrack:ada%40example.com?issuer=worktrack&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["TotpEnrolmentBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "twoFactor.disable": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "492039"
                 *     }
                 */
                "application/json": components["schemas"]["TotpCodeDto"];
            };
        };
        responses: {
            /** @description Two-factor is off. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "totp": "on"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["TotpStateBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "twoFactor.confirm": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "492039"
                 *     }
                 */
                "application/json": components["schemas"]["TotpCodeDto"];
            };
        };
        responses: {
            /** @description Two-factor is on. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "recovery_codes": [
                     *           "k3v7q-2xa9m",
                     *           "p4r8t-6bn2c"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["RecoveryCodesBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "members.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The member.
                 * @example f23fae5b-9bf3-42f9-a1c5-c4d41126d40c
                 */
                member_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "plate_capacity": 8
                 *     }
                 */
                "application/json": components["schemas"]["UpdateMemberDto"];
            };
        };
        responses: {
            /** @description The member, updated. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *         "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *         "kind": "human",
                     *         "role": "owner",
                     *         "display_name": "Ada Lovelace",
                     *         "email": null,
                     *         "timezone": "Europe/Berlin",
                     *         "working_hours": {
                     *           "mon": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "tue": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "wed": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "thu": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "fri": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "15:00"
                     *             }
                     *           ],
                     *           "sat": [],
                     *           "sun": []
                     *         },
                     *         "plate_capacity": 1,
                     *         "active": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ManagedMemberBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "members.deactivate": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The member.
                 * @example f23fae5b-9bf3-42f9-a1c5-c4d41126d40c
                 */
                member_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member, deactivated. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *         "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *         "kind": "human",
                     *         "role": "owner",
                     *         "display_name": "Ada Lovelace",
                     *         "email": null,
                     *         "timezone": "Europe/Berlin",
                     *         "working_hours": {
                     *           "mon": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "tue": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "wed": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "thu": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "12:30"
                     *             },
                     *             {
                     *               "start": "13:30",
                     *               "end": "17:30"
                     *             }
                     *           ],
                     *           "fri": [
                     *             {
                     *               "start": "09:00",
                     *               "end": "15:00"
                     *             }
                     *           ],
                     *           "sat": [],
                     *           "sun": []
                     *         },
                     *         "plate_capacity": 1,
                     *         "active": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ManagedMemberBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "operations.metrics": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # TYPE worktrack_rate_limited_total counter
                     *     worktrack_rate_limited_total 0
                     */
                    "text/plain": string;
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "modelPrices.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The price list. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "prices": [
                     *           {
                     *             "provider": "anthropic",
                     *             "model_pattern": "claude-sonnet-4*",
                     *             "effective_from": "2026-03-02T09:30:00Z",
                     *             "input": "3",
                     *             "output": "15",
                     *             "cache_read_input": "0.3",
                     *             "cache_creation_input": "3.75",
                     *             "reasoning_output": "15"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ModelPriceListBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "modelPrices.put": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "prices": [
                 *         {
                 *           "provider": "anthropic",
                 *           "model_pattern": "claude-sonnet-4*",
                 *           "effective_from": "2026-03-02T09:30:00Z",
                 *           "input": "3",
                 *           "output": "15",
                 *           "cache_read_input": "0.3",
                 *           "cache_creation_input": "3.75",
                 *           "reasoning_output": "15"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ModelPricesDto"];
            };
        };
        responses: {
            /** @description The price list as stored. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "prices": [
                     *           {
                     *             "provider": "anthropic",
                     *             "model_pattern": "claude-sonnet-4*",
                     *             "effective_from": "2026-03-02T09:30:00Z",
                     *             "input": "3",
                     *             "output": "15",
                     *             "cache_read_input": "0.3",
                     *             "cache_creation_input": "3.75",
                     *             "reasoning_output": "15"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ModelPriceListBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "plate.day": {
        parameters: {
            query?: {
                /** @description The `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description Default: your today in your timezone. */
                date?: string;
                limit?: number;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The day, with a page of its items. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "date": "2026-03-02",
                     *         "capacity": 1,
                     *         "active_count": 1,
                     *         "items": [
                     *           {
                     *             "plate_item_id": "98203461-3616-4024-a251-bf6601b520db",
                     *             "assignee_id": "fe83ef0a-b50a-411f-a3f1-1042d24cffba",
                     *             "assigned_by": "34c1f033-1259-46a7-ab4f-07d9da1c1e57",
                     *             "title": "Review the release notes",
                     *             "plate_date": "2026-03-02",
                     *             "done": false,
                     *             "done_at": null,
                     *             "created_at": "2026-03-02T09:30:00Z"
                     *           }
                     *         ]
                     *       },
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PlateDayBody"];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "plate.assign": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "assignee_id": "fe83ef0a-b50a-411f-a3f1-1042d24cffba",
                 *       "title": "Review the release notes"
                 *     }
                 */
                "application/json": components["schemas"]["AssignPlateDto"];
            };
        };
        responses: {
            /** @description Where the item landed. */
            201: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "plate_item_id": "98203461-3616-4024-a251-bf6601b520db",
                     *         "assignee_id": "fe83ef0a-b50a-411f-a3f1-1042d24cffba",
                     *         "plate_date": "2026-03-02",
                     *         "overflowed": false,
                     *         "active_count": 1,
                     *         "capacity": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PlateAssignmentBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `ASSIGNEE_NOT_FOUND`: The assignee is not a member of the caller's workspace.
             *     - `PLATE_DATE_IN_PAST`: The plate date is before the assignee's today.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "ASSIGNEE_NOT_FOUND" | "PLATE_DATE_IN_PAST" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "plate.complete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The plate item id (a UUID).
                 * @example 566147db-e8f3-4a86-adc6-32493665c9f7
                 */
                item_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "done": true
                 *     }
                 */
                "application/json": components["schemas"]["CompletePlateItemDto"];
            };
        };
        responses: {
            /** @description The item, done. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "plate_item_id": "98203461-3616-4024-a251-bf6601b520db",
                     *         "assignee_id": "fe83ef0a-b50a-411f-a3f1-1042d24cffba",
                     *         "assigned_by": "34c1f033-1259-46a7-ab4f-07d9da1c1e57",
                     *         "title": "Review the release notes",
                     *         "plate_date": "2026-03-02",
                     *         "done": false,
                     *         "done_at": null,
                     *         "created_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PlateItemBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "operations.readyz": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready, with the result of each check. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "status": "ready",
                     *         "checks": {
                     *           "kafka": "ok",
                     *           "replies": "ok"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: {
                            /**
                             * @example {
                             *       "kafka": "ok",
                             *       "replies": "ok"
                             *     }
                             */
                            checks: {
                                [key: string]: string;
                            };
                            /** @enum {string} */
                            status: "ready";
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "reports.activity": {
        parameters: {
            query: {
                /** @description Sessions report: `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description First day of the period (inclusive), a calendar date in `tz`. */
                from: string;
                goal_id?: string;
                /** @description Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only). */
                group_by?: string;
                /** @description Sessions report: page size (default 50). */
                limit?: number;
                member_id?: string;
                member_kind?: "human" | "agent";
                project_id?: string;
                /** @description Last day of the period (inclusive); at most 366 days after `from`. */
                to: string;
                /** @description IANA time zone the days are cut in; default the caller's. */
                tz?: string;
                work_type?: "intentional" | "reactive";
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per source and event type. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "source_type": "github",
                     *           "event_type": "pull_request.merged",
                     *           "in_session": 1,
                     *           "outside_session": 1
                     *         }
                     *       ],
                     *       "meta": {
                     *         "as_of": "2026-03-02T09:30:00Z",
                     *         "tz": "Europe/Berlin",
                     *         "from": "2026-03-02",
                     *         "to": "2026-03-02"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ActivityRowBody"][];
                        meta: {
                            /**
                             * Format: date-time
                             * @description Every write answered before this instant is included.
                             */
                            as_of: string;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            /** @example Europe/Berlin */
                            tz: string;
                        };
                    };
                    /**
                     * @example day,tracked_seconds
                     *     2026-03-02,3600
                     */
                    "text/csv": string;
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "reports.plate": {
        parameters: {
            query: {
                /** @description Sessions report: `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description First day of the period (inclusive), a calendar date in `tz`. */
                from: string;
                goal_id?: string;
                /** @description Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only). */
                group_by?: string;
                /** @description Sessions report: page size (default 50). */
                limit?: number;
                member_id?: string;
                member_kind?: "human" | "agent";
                project_id?: string;
                /** @description Last day of the period (inclusive); at most 366 days after `from`. */
                to: string;
                /** @description IANA time zone the days are cut in; default the caller's. */
                tz?: string;
                work_type?: "intentional" | "reactive";
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per assignee and day with items. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "assignee_id": "fe83ef0a-b50a-411f-a3f1-1042d24cffba",
                     *           "day": "2026-03-02",
                     *           "capacity": 1,
                     *           "assigned": 1,
                     *           "done": 1,
                     *           "overflowed_in": 1,
                     *           "overflowed_out": 1
                     *         }
                     *       ],
                     *       "meta": {
                     *         "as_of": "2026-03-02T09:30:00Z",
                     *         "tz": "Europe/Berlin",
                     *         "from": "2026-03-02",
                     *         "to": "2026-03-02"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PlateRowBody"][];
                        meta: {
                            /**
                             * Format: date-time
                             * @description Every write answered before this instant is included.
                             */
                            as_of: string;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            /** @example Europe/Berlin */
                            tz: string;
                        };
                    };
                    /**
                     * @example day,tracked_seconds
                     *     2026-03-02,3600
                     */
                    "text/csv": string;
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "reports.sessions": {
        parameters: {
            query: {
                /** @description Sessions report: `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description First day of the period (inclusive), a calendar date in `tz`. */
                from: string;
                goal_id?: string;
                /** @description Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only). */
                group_by?: string;
                /** @description Sessions report: page size (default 50). */
                limit?: number;
                member_id?: string;
                member_kind?: "human" | "agent";
                project_id?: string;
                /** @description Last day of the period (inclusive); at most 366 days after `from`. */
                to: string;
                /** @description IANA time zone the days are cut in; default the caller's. */
                tz?: string;
                work_type?: "intentional" | "reactive";
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions, newest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "session_id": "5c3a09bf-22e1-4411-a6af-48dfe0b85c2d",
                     *           "member_id": "f23fae5b-9bf3-42f9-a1c5-c4d41126d40c",
                     *           "intent_text": "Fix the flaky login test",
                     *           "state": "active",
                     *           "source": "timer",
                     *           "work_type": "intentional",
                     *           "goal_id": null,
                     *           "project_id": null,
                     *           "started_at": "2026-03-02T09:30:00Z",
                     *           "closed_at": null,
                     *           "user_tags": [
                     *             "billing"
                     *           ],
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "tracked_seconds": 1,
                     *           "paused_seconds": 1,
                     *           "linked_event_count": 1,
                     *           "usage_cost": "0.42"
                     *         }
                     *       ],
                     *       "meta": {
                     *         "as_of": "2026-03-02T09:30:00Z",
                     *         "tz": "Europe/Berlin",
                     *         "from": "2026-03-02",
                     *         "to": "2026-03-02",
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ReportSessionRowBody"][];
                        meta: {
                            /**
                             * Format: date-time
                             * @description Every write answered before this instant is included.
                             */
                            as_of: string;
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            /** @example Europe/Berlin */
                            tz: string;
                        };
                    };
                    /**
                     * @example day,tracked_seconds
                     *     2026-03-02,3600
                     */
                    "text/csv": string;
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "reports.summary": {
        parameters: {
            query: {
                /** @description Sessions report: `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description First day of the period (inclusive), a calendar date in `tz`. */
                from: string;
                goal_id?: string;
                /** @description Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only). */
                group_by?: string;
                /** @description Sessions report: page size (default 50). */
                limit?: number;
                member_id?: string;
                member_kind?: "human" | "agent";
                project_id?: string;
                /** @description Last day of the period (inclusive); at most 366 days after `from`. */
                to: string;
                /** @description IANA time zone the days are cut in; default the caller's. */
                tz?: string;
                work_type?: "intentional" | "reactive";
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per group with any activity, and the totals. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "tracked_seconds": 1,
                     *           "paused_seconds": 1,
                     *           "session_count": 1,
                     *           "linked_event_count": 1,
                     *           "outside_session_event_count": 1,
                     *           "usage_cost": "1.25",
                     *           "input_tokens": 1,
                     *           "output_tokens": 1,
                     *           "group": {}
                     *         }
                     *       ],
                     *       "meta": {
                     *         "as_of": "2026-03-02T09:30:00Z",
                     *         "tz": "Europe/Berlin",
                     *         "from": "2026-03-02",
                     *         "to": "2026-03-02",
                     *         "totals": {
                     *           "tracked_seconds": 1,
                     *           "paused_seconds": 1,
                     *           "session_count": 1,
                     *           "linked_event_count": 1,
                     *           "outside_session_event_count": 1,
                     *           "usage_cost": "1.25",
                     *           "input_tokens": 1,
                     *           "output_tokens": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SummaryRowBody"][];
                        meta: {
                            /**
                             * Format: date-time
                             * @description Every write answered before this instant is included.
                             */
                            as_of: string;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            totals: components["schemas"]["ReportMetricsBody"];
                            /** @example Europe/Berlin */
                            tz: string;
                        };
                    };
                    /**
                     * @example day,tracked_seconds
                     *     2026-03-02,3600
                     */
                    "text/csv": string;
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "sessions.list": {
        parameters: {
            query?: {
                /** @description Opaque; `meta.cursor` of the previous page, with the same filters. */
                cursor?: string;
                /** @description Inclusive calendar date of started_at, in the member's profile time zone. */
                from?: string;
                goal_id?: string;
                /** @description Page size; default 50. */
                limit?: number;
                project_id?: string;
                state?: "active" | "paused" | "closed";
                /** @description Inclusive, like from; not before from. */
                to?: string;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions; `meta.cursor` fetches the next one. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "session_id": "5c3a09bf-22e1-4411-a6af-48dfe0b85c2d",
                     *           "intent_text": "Fix the flaky login test",
                     *           "state": "active",
                     *           "source": "timer",
                     *           "work_type": "intentional",
                     *           "goal_id": null,
                     *           "project_id": null,
                     *           "started_at": "2026-03-02T09:30:00Z",
                     *           "closed_at": null,
                     *           "user_tags": [
                     *             "backend"
                     *           ],
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "tracked_seconds": 3540,
                     *           "paused_seconds": 60
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SessionBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "sessions.start": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "intent_text": "Fix the flaky login test",
                 *       "source": "timer",
                 *       "user_tags": [
                 *         "billing",
                 *         "urgent"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["StartSessionDto"];
            };
        };
        responses: {
            /** @description The session (for a repeated idempotency key: the one it created, as it is now). */
            201: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "session_id": "5c3a09bf-22e1-4411-a6af-48dfe0b85c2d",
                     *         "intent_text": "Fix the flaky login test",
                     *         "state": "active",
                     *         "source": "timer",
                     *         "work_type": "intentional",
                     *         "goal_id": null,
                     *         "project_id": null,
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "closed_at": null,
                     *         "user_tags": [
                     *           "backend"
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "tracked_seconds": 3540,
                     *         "paused_seconds": 60
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SessionBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Conflict with the current state.
             *     - `IDEMPOTENCY_KEY_REUSED`: The idempotency key was used before with a different body.
             */
            409: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "IDEMPOTENCY_KEY_REUSED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "sessions.close": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The session id (a UUID).
                 * @example 5c3a09bf-22e1-4411-a6af-48dfe0b85c2d
                 */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "closing_note": "Fixed; the test was racing the session cache."
                 *     }
                 */
                "application/json": components["schemas"]["CloseSessionDto"];
            };
        };
        responses: {
            /** @description The session, closed (or as it was, if it was closed already). */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "session_id": "5c3a09bf-22e1-4411-a6af-48dfe0b85c2d",
                     *         "intent_text": "Fix the flaky login test",
                     *         "state": "active",
                     *         "source": "timer",
                     *         "work_type": "intentional",
                     *         "goal_id": null,
                     *         "project_id": null,
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "closed_at": null,
                     *         "user_tags": [
                     *           "backend"
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "tracked_seconds": 3540,
                     *         "paused_seconds": 60
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SessionBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `SESSION_NOT_FOUND`: The session does not exist for this member.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "SESSION_NOT_FOUND" | "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "sessions.pause": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The session id (a UUID).
                 * @example 5c3a09bf-22e1-4411-a6af-48dfe0b85c2d
                 */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "pause_reason": "Lunch break"
                 *     }
                 */
                "application/json": components["schemas"]["PauseSessionDto"];
            };
        };
        responses: {
            /** @description The session, paused. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "session_id": "5c3a09bf-22e1-4411-a6af-48dfe0b85c2d",
                     *         "intent_text": "Fix the flaky login test",
                     *         "state": "active",
                     *         "source": "timer",
                     *         "work_type": "intentional",
                     *         "goal_id": null,
                     *         "project_id": null,
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "closed_at": null,
                     *         "user_tags": [
                     *           "backend"
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "tracked_seconds": 3540,
                     *         "paused_seconds": 60
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SessionBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `SESSION_NOT_FOUND`: The session does not exist for this member.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "SESSION_NOT_FOUND" | "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Conflict with the current state.
             *     - `SESSION_STATE_CONFLICT`: The session is not in a state that allows this; the message names its current state.
             */
            409: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "SESSION_STATE_CONFLICT";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "sessions.resume": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The session id (a UUID).
                 * @example 5c3a09bf-22e1-4411-a6af-48dfe0b85c2d
                 */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session, active again. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "session_id": "5c3a09bf-22e1-4411-a6af-48dfe0b85c2d",
                     *         "intent_text": "Fix the flaky login test",
                     *         "state": "active",
                     *         "source": "timer",
                     *         "work_type": "intentional",
                     *         "goal_id": null,
                     *         "project_id": null,
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "closed_at": null,
                     *         "user_tags": [
                     *           "backend"
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "tracked_seconds": 3540,
                     *         "paused_seconds": 60
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["SessionBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `SESSION_NOT_FOUND`: The session does not exist for this member.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "SESSION_NOT_FOUND" | "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Conflict with the current state.
             *     - `SESSION_STATE_CONFLICT`: The session is not in a state that allows this; the message names its current state.
             */
            409: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "SESSION_STATE_CONFLICT";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "operations.status": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every service answered. */
            200: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "services": [
                     *           {
                     *             "service": "identity",
                     *             "instanceId": "sessions-7d9f8-1",
                     *             "version": "0.1.0",
                     *             "schema": "sessions",
                     *             "migrations": [
                     *               {
                     *                 "name": "AddIdempotencyKeys1761000000000",
                     *                 "timestamp": 1761000000000
                     *               }
                     *             ],
                     *             "databaseLatencyMs": 1,
                     *             "databaseVersion": "PostgreSQL 16.4",
                     *             "roundTripMs": 1
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: {
                            services: {
                                databaseLatencyMs: number;
                                /** @example PostgreSQL 16.4 */
                                databaseVersion?: string;
                                /**
                                 * @description The replica that answered.
                                 * @example sessions-7d9f8-1
                                 */
                                instanceId: string;
                                /** @description Migrations applied in that schema, newest first. */
                                migrations: {
                                    /** @example AddIdempotencyKeys1761000000000 */
                                    name: string;
                                    /** @example 1761000000000 */
                                    timestamp: number;
                                }[];
                                /** @description Gateway to the service and back, over Kafka. */
                                roundTripMs: number;
                                /**
                                 * @description The Postgres schema the service owns.
                                 * @example sessions
                                 */
                                schema: string;
                                /** @enum {string} */
                                service: "identity" | "ingestion" | "correlation" | "sessions" | "plate" | "connectors" | "webhooks" | "reporting";
                                /** @example 0.1.0 */
                                version: string;
                            }[];
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "tokens.list": {
        parameters: {
            query?: {
                /** @description The `meta.cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tokens, newest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "token_id": "k3v7q2xa",
                     *           "name": "CI deploys",
                     *           "scope": "full",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "last_used_at": null,
                     *           "expires_at": null,
                     *           "revoked_at": null
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["TokenBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "tokens.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "CI deploys",
                 *       "scope": "full",
                 *       "expires_in_days": 90
                 *     }
                 */
                "application/json": components["schemas"]["CreateTokenDto"];
            };
        };
        responses: {
            /** @description The token, with its secret shown this once. */
            201: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "token_id": "k3v7q2xa",
                     *         "name": "CI deploys",
                     *         "scope": "full",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "last_used_at": null,
                     *         "expires_at": null,
                     *         "revoked_at": null,
                     *         "token": "wt_EXAMPLE0_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["CreatedTokenBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "tokens.revoke": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The public id of the token (its short segment).
                 * @example k3v7q2xa
                 */
                token_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The token, revoked. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "token_id": "k3v7q2xa",
                     *         "name": "CI deploys",
                     *         "scope": "full",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "last_used_at": null,
                     *         "expires_at": null,
                     *         "revoked_at": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["TokenBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "tokens.rename": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The public id of the token (its short segment).
                 * @example k3v7q2xa
                 */
                token_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "CI deploys (prod)"
                 *     }
                 */
                "application/json": components["schemas"]["RenameTokenDto"];
            };
        };
        responses: {
            /** @description The token, renamed. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "token_id": "k3v7q2xa",
                     *         "name": "CI deploys",
                     *         "scope": "full",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "last_used_at": null,
                     *         "expires_at": null,
                     *         "revoked_at": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["TokenBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "usage.list": {
        parameters: {
            query?: {
                cursor?: string;
                from?: string;
                limit?: number;
                model?: string;
                provider?: string;
                session_id?: string;
                to?: string;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of usage records, newest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "usage_id": "e2fb2a38-ffec-49e4-a4c5-f72d196c6f5e",
                     *           "external_id": "msg_01XFDUDYJgAACzvnptvVoYEL",
                     *           "provider": "anthropic",
                     *           "model": "claude-sonnet-4-5",
                     *           "operation": "chat",
                     *           "occurred_at": "2026-03-02T09:30:00Z",
                     *           "received_at": "2026-03-02T09:30:00Z",
                     *           "duration_ms": null,
                     *           "input_tokens": null,
                     *           "output_tokens": null,
                     *           "cache_read_input_tokens": null,
                     *           "cache_creation_input_tokens": null,
                     *           "reasoning_output_tokens": null,
                     *           "cost": {
                     *             "amount": "0.004215",
                     *             "currency": "USD"
                     *           },
                     *           "cost_source": "reported",
                     *           "session_id": null,
                     *           "conversation_id": "conv_5f2a",
                     *           "tool_name": "web_search",
                     *           "attributes": {
                     *             "agent": "triage-bot"
                     *           }
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["StoredUsageBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "usage.report": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UsageRecordDto"] | components["schemas"]["UsageBatchDto"];
            };
        };
        responses: {
            /** @description Stored: one id per submitted record, in order. */
            202: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "accepted": 1,
                     *         "deduplicated": 1,
                     *         "usage_ids": [
                     *           "5132b471-5231-488d-a850-953393817ffe"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["UsageIngestedBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `PAYLOAD_CONTAINS_SECRET`: An event payload holds something that looks like a secret; `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "PAYLOAD_CONTAINS_SECRET" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.list": {
        parameters: {
            query?: {
                /** @description `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description Page size, 1–100; default 50. */
                limit?: number;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints, oldest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "endpoint_id": "119458d3-796e-465f-a4b0-7af2772e11d8",
                     *           "url": "https://hooks.example.com/worktrack",
                     *           "event_types": [
                     *             "session.started"
                     *           ],
                     *           "description": null,
                     *           "enabled": false,
                     *           "disabled_reason": "the endpoint answered 410 Gone",
                     *           "created_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookEndpointBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/worktrack",
                 *       "event_types": [
                 *         "session.started",
                 *         "session.closed"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateWebhookEndpointDto"];
            };
        };
        responses: {
            /** @description The endpoint, with its signing secret (shown once). */
            201: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "endpoint_id": "119458d3-796e-465f-a4b0-7af2772e11d8",
                     *         "url": "https://hooks.example.com/worktrack",
                     *         "event_types": [
                     *           "session.started"
                     *         ],
                     *         "description": null,
                     *         "enabled": false,
                     *         "disabled_reason": "the endpoint answered 410 Gone",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookEndpointWithSecretBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The endpoint id (a UUID).
                 * @example 119458d3-796e-465f-a4b0-7af2772e11d8
                 */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "endpoint_id": "119458d3-796e-465f-a4b0-7af2772e11d8",
                     *         "url": "https://hooks.example.com/worktrack",
                     *         "event_types": [
                     *           "session.started"
                     *         ],
                     *         "description": null,
                     *         "enabled": false,
                     *         "disabled_reason": "the endpoint answered 410 Gone",
                     *         "created_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookEndpointBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.remove": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The endpoint id (a UUID).
                 * @example 119458d3-796e-465f-a4b0-7af2772e11d8
                 */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint, as it was. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "endpoint_id": "119458d3-796e-465f-a4b0-7af2772e11d8",
                     *         "url": "https://hooks.example.com/worktrack",
                     *         "event_types": [
                     *           "session.started"
                     *         ],
                     *         "description": null,
                     *         "enabled": false,
                     *         "disabled_reason": "the endpoint answered 410 Gone",
                     *         "created_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookEndpointBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The endpoint id (a UUID).
                 * @example 119458d3-796e-465f-a4b0-7af2772e11d8
                 */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /** @example {} */
                "application/json": components["schemas"]["UpdateWebhookEndpointDto"];
            };
        };
        responses: {
            /** @description The endpoint, changed. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "endpoint_id": "119458d3-796e-465f-a4b0-7af2772e11d8",
                     *         "url": "https://hooks.example.com/worktrack",
                     *         "event_types": [
                     *           "session.started"
                     *         ],
                     *         "description": null,
                     *         "enabled": false,
                     *         "disabled_reason": "the endpoint answered 410 Gone",
                     *         "created_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookEndpointBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.deliveries": {
        parameters: {
            query?: {
                /** @description `meta.cursor` of the previous page. */
                cursor?: string;
                /** @description Page size, 1–100; default 50. */
                limit?: number;
            };
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The endpoint id (a UUID).
                 * @example 119458d3-796e-465f-a4b0-7af2772e11d8
                 */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of attempts, newest first. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "attempt_id": "27d2dbbb-721a-4ea7-a2fc-1fd456129758",
                     *           "webhook_id": "msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90",
                     *           "type": "session.started",
                     *           "status_code": null,
                     *           "outcome": "succeeded",
                     *           "duration_ms": 1,
                     *           "attempted_at": "2026-03-02T09:30:00Z",
                     *           "next_attempt_at": null
                     *         }
                     *       ],
                     *       "meta": {
                     *         "cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookAttemptBody"][];
                        meta: {
                            /** @description Pass as `cursor` for the next page; null on the last page. */
                            cursor: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_CURSOR`: The cursor is not one this API issued for the same filters.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_CURSOR";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.recover": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The endpoint id (a UUID).
                 * @example 119458d3-796e-465f-a4b0-7af2772e11d8
                 */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-03-02T09:30:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["RecoverWebhookMessagesDto"];
            };
        };
        responses: {
            /** @description How many messages are queued again. */
            202: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "messages": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookResendBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.rotate": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The endpoint id (a UUID).
                 * @example 119458d3-796e-465f-a4b0-7af2772e11d8
                 */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint, with its new secret. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "endpoint_id": "119458d3-796e-465f-a4b0-7af2772e11d8",
                     *         "url": "https://hooks.example.com/worktrack",
                     *         "event_types": [
                     *           "session.started"
                     *         ],
                     *         "description": null,
                     *         "enabled": false,
                     *         "disabled_reason": "the endpoint answered 410 Gone",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookEndpointWithSecretBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookEndpoints.test": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The endpoint id (a UUID).
                 * @example 119458d3-796e-465f-a4b0-7af2772e11d8
                 */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message is queued. */
            202: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "webhook_id": "msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookTestBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "webhookMessages.replay": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The webhook-id of a message (`msg_` and 32 hex digits).
                 * @example msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90
                 */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How many deliveries are queued again. */
            202: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "messages": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookResendBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not found.
             *     - `NOT_FOUND`: No such resource for this member (an unknown route, or an id of another member or workspace).
             */
            404: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "NOT_FOUND";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
    "twoFactor.updateWorkspace": {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "require_two_factor": "none"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateWorkspaceDto"];
            };
        };
        responses: {
            /** @description The workspace. */
            200: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "workspace_id": "98608ef9-3fc8-4e9a-aae4-5f80e214cfab",
                     *         "name": "Acme",
                     *         "require_two_factor": "none"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WorkspaceBody"];
                    };
                };
            };
            /**
             * @description Invalid request.
             *     - `VALIDATION_FAILED`: The request breaks a documented rule; `details` names every bad field.
             *     - `PROTOTYPE_POISONING`: The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.
             *     - `INVALID_JSON`: The body is not valid JSON (or is empty while Content-Type says JSON).
             */
            400: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "VALIDATION_FAILED" | "PROTOTYPE_POISONING" | "INVALID_JSON";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential.
             *     - `UNAUTHENTICATED`: The bearer credential is missing, malformed, unknown, revoked or expired.
             */
            401: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAUTHENTICATED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Not allowed for this credential.
             *     - `FORBIDDEN`: The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.
             */
            403: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "FORBIDDEN";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request body too large.
             *     - `PAYLOAD_TOO_LARGE`: The request body is larger than the gateway accepts.
             */
            413: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "PAYLOAD_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Unsupported media type.
             *     - `UNSUPPORTED_MEDIA_TYPE`: A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).
             */
            415: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Rate limit exceeded.
             *     - `RATE_LIMITED`: Too many requests in the rolling minute; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit": number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining": number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset": number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "RATE_LIMITED";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Request headers too large.
             *     - `HEADERS_TOO_LARGE`: The request headers (an `Authorization` header, cookies) are larger than the gateway accepts (RFC 6585).
             */
            431: {
                headers: {
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "HEADERS_TOO_LARGE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description Internal error.
             *     - `INTERNAL`: An unexpected error; the message names the request id to report.
             */
            500: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "INTERNAL";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
            /**
             * @description A dependency is unavailable.
             *     - `UNAVAILABLE`: A dependency did not answer in time; safe to retry. `details` may name it.
             */
            503: {
                headers: {
                    /** @description Requests allowed per member in the rolling minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests the member may still make now. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window allows another request. */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": number;
                    /** @description The client's request id, or a new UUID. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {unknown} */
                            code: "UNAVAILABLE";
                            /** @description Validation failures, one per offending field. */
                            details?: components["schemas"]["ErrorDetail"][];
                            /** @description For humans; may change. */
                            message: string;
                        };
                    };
                };
            };
        };
    };
}
