// GENERATED FILE — DO NOT EDIT.
// JSON Schemas of every operation's path, query and body, from the OpenAPI document (GET /openapi.yaml), references inlined.
// Regenerate with `npm run generate:sdk` (scripts/generate-sdk.ts); a unit test fails when it is stale.
/** Request schemas (JSON Schema 2020-12) of each operation, by operationId. */
export const REQUEST_SCHEMAS = {
  "activity.ingest": {
    "method": "POST",
    "path": "/activity/events",
    "summary": "Ingest activity events",
    "description": "One ActivityEvent, or `{ events: [...] }` with at most 100. All or nothing; retries with the same `external_id` are deduplicated. 202 means stored.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "oneOf": [
        {
          "properties": {
            "source_type": {
              "description": "Origin slug, e.g. `ci`, `desktop`.",
              "anyOf": [
                {
                  "pattern": "^[a-z0-9_.-]{1,64}$",
                  "type": "string",
                  "default": "custom",
                  "examples": [
                    "ci"
                  ]
                },
                {
                  "type": "null"
                }
              ]
            },
            "event_type": {
              "pattern": "^[a-z0-9_.-]{1,64}$",
              "type": "string",
              "description": "What happened, e.g. `deploy`, `test_run`, `cron_job`.",
              "examples": [
                "deploy"
              ]
            },
            "occurred_at": {
              "type": [
                "string",
                "null"
              ],
              "format": "date-time",
              "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
              "description": "When it happened (RFC 3339 with an offset), at most 10 minutes in the future. Default: the time of receipt.",
              "examples": [
                "2026-03-02T09:30:00Z"
              ]
            },
            "payload": {
              "type": [
                "object",
                "null"
              ],
              "additionalProperties": true,
              "description": "Opaque metadata: any JSON object of at most 32 KB (32768 bytes as UTF-8 JSON). Must not contain document bodies or secrets.",
              "examples": [
                {
                  "service": "api",
                  "environment": "production",
                  "version": "1.42.0"
                }
              ]
            },
            "external_id": {
              "type": [
                "string",
                "null"
              ],
              "maxLength": 256,
              "description": "The client's stable id: retries with the same `source_type` and `external_id` are stored once.",
              "examples": [
                "deploy-api-1.42.0"
              ]
            }
          },
          "type": "object",
          "required": [
            "event_type"
          ],
          "title": "One event",
          "additionalProperties": false
        },
        {
          "properties": {
            "events": {
              "items": {
                "properties": {
                  "source_type": {
                    "description": "Origin slug, e.g. `ci`, `desktop`.",
                    "anyOf": [
                      {
                        "pattern": "^[a-z0-9_.-]{1,64}$",
                        "type": "string",
                        "default": "custom",
                        "examples": [
                          "ci"
                        ]
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "event_type": {
                    "pattern": "^[a-z0-9_.-]{1,64}$",
                    "type": "string",
                    "description": "What happened, e.g. `deploy`, `test_run`, `cron_job`.",
                    "examples": [
                      "deploy"
                    ]
                  },
                  "occurred_at": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date-time",
                    "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
                    "description": "When it happened (RFC 3339 with an offset), at most 10 minutes in the future. Default: the time of receipt.",
                    "examples": [
                      "2026-03-02T09:30:00Z"
                    ]
                  },
                  "payload": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "additionalProperties": true,
                    "description": "Opaque metadata: any JSON object of at most 32 KB (32768 bytes as UTF-8 JSON). Must not contain document bodies or secrets.",
                    "examples": [
                      {
                        "service": "api",
                        "environment": "production",
                        "version": "1.42.0"
                      }
                    ]
                  },
                  "external_id": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "maxLength": 256,
                    "description": "The client's stable id: retries with the same `source_type` and `external_id` are stored once.",
                    "examples": [
                      "deploy-api-1.42.0"
                    ]
                  }
                },
                "type": "object",
                "required": [
                  "event_type"
                ],
                "title": "One event",
                "additionalProperties": false
              },
              "type": "array",
              "maxItems": 100,
              "minItems": 1
            }
          },
          "type": "object",
          "required": [
            "events"
          ],
          "title": "A batch of events",
          "description": "At most 100 events, stored all or nothing.",
          "additionalProperties": false
        }
      ]
    }
  },
  "activity.timeline": {
    "method": "GET",
    "path": "/activity/events",
    "summary": "Read your activity timeline",
    "description": "Newest first; `meta.cursor` fetches the next page.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "from": {
            "type": "string",
            "format": "date-time",
            "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$"
          },
          "to": {
            "type": "string",
            "format": "date-time",
            "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$"
          },
          "source_type": {
            "pattern": "^[a-z0-9_.-]{1,64}$",
            "type": "string"
          },
          "event_type": {
            "pattern": "^[a-z0-9_.-]{1,64}$",
            "type": "string"
          },
          "session_id": {
            "format": "uuid",
            "type": "string"
          },
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1
          },
          "cursor": {
            "type": "string",
            "maxLength": 512
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "agents.register": {
    "method": "POST",
    "path": "/agents",
    "summary": "Register an agent",
    "description": "Creates an agent member in the caller's workspace (timezone and working hours copied from the caller) and its API token. Owners and admins with a `full` credential only; agents cannot register agents.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "name": {
          "type": "string",
          "maxLength": 200,
          "minLength": 1,
          "description": "The agent's display name.",
          "examples": [
            "Release bot"
          ]
        },
        "scope": {
          "type": [
            "string",
            "null"
          ],
          "enum": [
            "full",
            "report_only",
            null
          ],
          "description": "The scope of the agent's token; default `report_only`."
        }
      },
      "type": "object",
      "required": [
        "name"
      ],
      "additionalProperties": false
    }
  },
  "connectors.create": {
    "method": "POST",
    "path": "/connectors",
    "summary": "Connect a provider account",
    "description": "github and slack need `secret` and answer at `hook_path`; calendar needs `feed_url` and is polled. Secrets are stored encrypted and never returned. The connector writes through the same path as POST /activity/events, as `member_id`, with a report_only token.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "kind": {
          "type": "string",
          "enum": [
            "github",
            "slack",
            "calendar"
          ],
          "description": "`github` (webhooks), `slack` (Events API) or `calendar` (an ICS feed, polled)."
        },
        "name": {
          "type": "string",
          "maxLength": 100,
          "minLength": 1,
          "description": "A label for you.",
          "examples": [
            "Backend repository"
          ]
        },
        "member_id": {
          "format": "uuid",
          "type": [
            "string",
            "null"
          ],
          "description": "Whose activity this is. Default: you; another member of your workspace needs an owner or admin."
        },
        "account": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 100,
          "minLength": 1,
          "description": "The provider account whose activity belongs to the member: a GitHub login or a Slack user id (U…). Without it every delivery is theirs (github, slack only).",
          "examples": [
            "octocat"
          ]
        },
        "secret": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 256,
          "minLength": 8,
          "description": "github: the webhook secret; slack: the app signing secret. Stored encrypted, never returned.",
          "writeOnly": true
        },
        "feed_url": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 2048,
          "description": "calendar: the ICS feed address (https, http or webcal). Stored encrypted; shown only as scheme and host.",
          "writeOnly": true
        },
        "poll_interval_seconds": {
          "maximum": 86400,
          "type": [
            "integer",
            "null"
          ],
          "minimum": 60,
          "description": "calendar: seconds between polls, 60–86400; default 300."
        }
      },
      "type": "object",
      "required": [
        "kind",
        "name"
      ],
      "additionalProperties": false
    }
  },
  "connectors.deliveries": {
    "method": "GET",
    "path": "/connectors/{connector_id}/deliveries",
    "summary": "Read a connector's delivery log",
    "description": "Newest first: every verified delivery (or calendar poll that changed something or failed), with what was mapped, accepted and deduplicated, and why anything was ignored or failed.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "connector_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The connector id (a UUID)."
          }
        },
        "required": [
          "connector_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Page size, 1–100; default 50."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "`meta.cursor` of the previous page."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "connectors.list": {
    "method": "GET",
    "path": "/connectors",
    "summary": "List your connectors",
    "description": "Those acting for you and those you created; never with a secret.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1
          },
          "cursor": {
            "maxLength": 512,
            "type": "string",
            "description": "The `meta.cursor` of the previous page."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "connectors.remove": {
    "method": "DELETE",
    "path": "/connectors/{connector_id}",
    "summary": "Disconnect",
    "description": "Revokes the connector’s token; its hook answers 404 from then on. Events already stored stay.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "connector_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The connector id (a UUID)."
          }
        },
        "required": [
          "connector_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "hooks.github": {
    "method": "POST",
    "path": "/hooks/github/{connector_id}",
    "summary": "GitHub webhook endpoint",
    "description": "Point a repository or organisation webhook here (JSON or form content type) with the connector’s secret. X-Hub-Signature-256 is checked in constant time; push, pull_request, workflow_run, check_run, deployment_status and release become ActivityEvents (external_id = X-GitHub-Delivery + index, so redeliveries dedupe). Deliveries up to GitHub’s 25 MB limit are accepted; what is stored stays bounded. Other events are acknowledged and logged as ignored.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "connector_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The connector id (a UUID)."
          }
        },
        "required": [
          "connector_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "type": "object",
      "additionalProperties": true,
      "examples": [
        {
          "ref": "refs/heads/main",
          "before": "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
          "after": "59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5",
          "repository": {
            "id": 1296269,
            "full_name": "octocat/Hello-World"
          },
          "pusher": {
            "name": "octocat"
          },
          "commits": [
            {
              "id": "59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5",
              "message": "Fix the flaky login test"
            }
          ]
        }
      ]
    }
  },
  "hooks.slack": {
    "method": "POST",
    "path": "/hooks/slack/{connector_id}",
    "summary": "Slack Events API endpoint",
    "description": "The Request URL of a Slack app whose signing secret the connector holds. Answers the url_verification challenge (`{ \"challenge\": … }`); checks the v0 signature within a 5-minute window; retries (X-Slack-Retry-Num) dedupe by event_id. Messages, reactions and huddles become metadata-only events.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "connector_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The connector id (a UUID)."
          }
        },
        "required": [
          "connector_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "type": "object",
      "additionalProperties": true,
      "examples": [
        {
          "token": "Jhj5dZrVaK7ZwHHjRyZWjbDl",
          "team_id": "T0001",
          "api_app_id": "A0001",
          "type": "event_callback",
          "event_id": "Ev0PV52K21",
          "event_time": 1772443800,
          "event": {
            "type": "message",
            "channel": "C2147483705",
            "user": "U2147483697",
            "ts": "1772443800.000200"
          }
        }
      ]
    }
  },
  "invites.create": {
    "method": "POST",
    "path": "/invites",
    "summary": "Invite someone by email",
    "description": "Owners and admins. The link works once, before `expires_at`. An active member’s email is 409 `MEMBER_EXISTS`.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "email": {
          "maxLength": 320,
          "type": "string",
          "format": "email",
          "description": "Who to invite (compared case-insensitively).",
          "examples": [
            "grace@example.com"
          ]
        },
        "role": {
          "type": [
            "string",
            "null"
          ],
          "enum": [
            "owner",
            "admin",
            "member",
            null
          ],
          "description": "`member` when absent; admins invite members and admins, owners anyone."
        },
        "expires_in_hours": {
          "maximum": 168,
          "type": [
            "integer",
            "null"
          ],
          "minimum": 1,
          "description": "How long the link works: 1 to 168 hours, 72 when absent."
        }
      },
      "type": "object",
      "required": [
        "email"
      ],
      "additionalProperties": false
    }
  },
  "invites.list": {
    "method": "GET",
    "path": "/invites",
    "summary": "List pending invites",
    "description": "Owners and admins; newest first, without links.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "invites.withdraw": {
    "method": "DELETE",
    "path": "/invites/{invite_id}",
    "summary": "Withdraw an invite",
    "description": "Its link stops working. A used or unknown invite is a 404.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "invite_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The invite id (a UUID)."
          }
        },
        "required": [
          "invite_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "jwks.jwks": {
    "method": "GET",
    "path": "/.well-known/jwks.json",
    "summary": "The session JWTs’ public keys",
    "description": "RFC 7517 JSON Web Key Set: public EC P-256 keys, each with its `kid`.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "mcp.post": {
    "method": "POST",
    "path": "/mcp",
    "summary": "Send an MCP message",
    "description": "One JSON-RPC message of the Model Context Protocol (streamable HTTP transport, stateless): `initialize`, `tools/list`, `tools/call` and the rest. Tools: whoami, start_session, pause_session, resume_session, close_session, list_sessions, report_event, assign_to_plate, my_plate. A tool that fails answers a result with `isError: true` whose text starts with the error code. Without a valid bearer credential the answer is 401 and no tool is listed. GET and DELETE answer 405 with `Allow: POST`: the server is stateless, with no event stream to open and no session to end.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "type": "object",
      "required": [
        "jsonrpc"
      ],
      "additionalProperties": true,
      "properties": {
        "jsonrpc": {
          "type": "string",
          "enum": [
            "2.0"
          ]
        },
        "id": {
          "oneOf": [
            {
              "type": "string"
            },
            {
              "type": "integer"
            }
          ]
        },
        "method": {
          "type": "string",
          "examples": [
            "tools/call"
          ]
        },
        "params": {
          "type": "object",
          "additionalProperties": true
        },
        "result": {
          "type": "object",
          "additionalProperties": true
        },
        "error": {
          "type": "object",
          "additionalProperties": true
        }
      }
    }
  },
  "me.me": {
    "method": "GET",
    "path": "/me",
    "summary": "Read the member the credential acts as",
    "description": "Profile, timezone and working hours.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "me.update": {
    "method": "PATCH",
    "path": "/me",
    "summary": "Change your profile",
    "description": "Any of `timezone` (IANA name), `working_hours` and `display_name`; absent fields are kept. Later requests use the new values: date filters of sessions, plate days and \"today\". Plate items keep the calendar day they were put on; sessions keep their instants.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "timezone": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 64,
          "description": "IANA time zone name, e.g. `Asia/Tokyo`. Date filters, plate days and \"today\" follow it from the next request.",
          "examples": [
            "Asia/Tokyo"
          ]
        },
        "working_hours": {
          "description": "Per weekday, the working intervals (`HH:MM`, in `timezone`, in order, not overlapping); `[]` for a day off.",
          "anyOf": [
            {
              "properties": {
                "mon": {
                  "items": {
                    "properties": {
                      "start": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      },
                      "end": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      }
                    },
                    "type": "object",
                    "required": [
                      "start",
                      "end"
                    ],
                    "additionalProperties": false,
                    "examples": [
                      {
                        "start": "09:00",
                        "end": "17:30"
                      }
                    ]
                  },
                  "type": "array"
                },
                "tue": {
                  "items": {
                    "properties": {
                      "start": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      },
                      "end": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      }
                    },
                    "type": "object",
                    "required": [
                      "start",
                      "end"
                    ],
                    "additionalProperties": false,
                    "examples": [
                      {
                        "start": "09:00",
                        "end": "17:30"
                      }
                    ]
                  },
                  "type": "array"
                },
                "wed": {
                  "items": {
                    "properties": {
                      "start": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      },
                      "end": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      }
                    },
                    "type": "object",
                    "required": [
                      "start",
                      "end"
                    ],
                    "additionalProperties": false,
                    "examples": [
                      {
                        "start": "09:00",
                        "end": "17:30"
                      }
                    ]
                  },
                  "type": "array"
                },
                "thu": {
                  "items": {
                    "properties": {
                      "start": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      },
                      "end": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      }
                    },
                    "type": "object",
                    "required": [
                      "start",
                      "end"
                    ],
                    "additionalProperties": false,
                    "examples": [
                      {
                        "start": "09:00",
                        "end": "17:30"
                      }
                    ]
                  },
                  "type": "array"
                },
                "fri": {
                  "items": {
                    "properties": {
                      "start": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      },
                      "end": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      }
                    },
                    "type": "object",
                    "required": [
                      "start",
                      "end"
                    ],
                    "additionalProperties": false,
                    "examples": [
                      {
                        "start": "09:00",
                        "end": "17:30"
                      }
                    ]
                  },
                  "type": "array"
                },
                "sat": {
                  "items": {
                    "properties": {
                      "start": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      },
                      "end": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      }
                    },
                    "type": "object",
                    "required": [
                      "start",
                      "end"
                    ],
                    "additionalProperties": false,
                    "examples": [
                      {
                        "start": "09:00",
                        "end": "17:30"
                      }
                    ]
                  },
                  "type": "array"
                },
                "sun": {
                  "items": {
                    "properties": {
                      "start": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      },
                      "end": {
                        "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$",
                        "type": "string"
                      }
                    },
                    "type": "object",
                    "required": [
                      "start",
                      "end"
                    ],
                    "additionalProperties": false,
                    "examples": [
                      {
                        "start": "09:00",
                        "end": "17:30"
                      }
                    ]
                  },
                  "type": "array"
                }
              },
              "type": "object",
              "required": [
                "mon",
                "tue",
                "wed",
                "thu",
                "fri",
                "sat",
                "sun"
              ],
              "additionalProperties": false,
              "examples": [
                {
                  "mon": [
                    {
                      "start": "09:00",
                      "end": "12:30"
                    },
                    {
                      "start": "13:30",
                      "end": "17:30"
                    }
                  ],
                  "tue": [
                    {
                      "start": "09:00",
                      "end": "12:30"
                    },
                    {
                      "start": "13:30",
                      "end": "17:30"
                    }
                  ],
                  "wed": [
                    {
                      "start": "09:00",
                      "end": "12:30"
                    },
                    {
                      "start": "13:30",
                      "end": "17:30"
                    }
                  ],
                  "thu": [
                    {
                      "start": "09:00",
                      "end": "12:30"
                    },
                    {
                      "start": "13:30",
                      "end": "17:30"
                    }
                  ],
                  "fri": [
                    {
                      "start": "09:00",
                      "end": "15:00"
                    }
                  ],
                  "sat": [],
                  "sun": []
                }
              ]
            },
            {
              "type": "null"
            }
          ]
        },
        "display_name": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 200,
          "minLength": 1,
          "description": "The name teammates see.",
          "examples": [
            "Ada L."
          ]
        }
      },
      "type": "object",
      "additionalProperties": false
    }
  },
  "members.deactivate": {
    "method": "POST",
    "path": "/members/{member_id}/deactivate",
    "summary": "Deactivate a member",
    "description": "Owners and admins with a `full` credential; idempotent. The member's API tokens and session tokens stop working within 5 seconds on every replica; nothing of theirs is deleted; no new plate item can be assigned to them.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "member_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The member."
          }
        },
        "required": [
          "member_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "members.list": {
    "method": "GET",
    "path": "/members",
    "summary": "List your workspace's members",
    "description": "Oldest first. Owners and admins see every member, humans and agents, deactivated ones included, with role, plate capacity, status and last use. Plain members see the active teammates with id, name and kind, enough to assign to them. A `report_only` credential sees its own member only.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1
          },
          "cursor": {
            "maxLength": 512,
            "type": "string",
            "description": "The `meta.cursor` of the previous page."
          },
          "kind": {
            "type": "string",
            "enum": [
              "human",
              "agent"
            ],
            "description": "Only humans or only agents."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "members.update": {
    "method": "PATCH",
    "path": "/members/{member_id}",
    "summary": "Set a member's plate capacity or role",
    "description": "Owners and admins with a `full` credential. Absent fields are kept. The change applies to later requests on every route.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "member_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The member."
          }
        },
        "required": [
          "member_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "plate_capacity": {
          "maximum": 1000,
          "type": [
            "integer",
            "null"
          ],
          "minimum": 0,
          "description": "Items a day on the member's plate; applies to later assignments.",
          "examples": [
            8
          ]
        },
        "role": {
          "type": [
            "string",
            "null"
          ],
          "enum": [
            "owner",
            "admin",
            "member",
            null
          ],
          "description": "Only an owner may make or unmake an owner; a workspace keeps at least one active owner; agents stay `member`."
        }
      },
      "type": "object",
      "additionalProperties": false
    }
  },
  "modelPrices.get": {
    "method": "GET",
    "path": "/model-prices",
    "summary": "Read the workspace's model prices",
    "description": "USD per million tokens; used to cost usage reported without one.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "modelPrices.put": {
    "method": "PUT",
    "path": "/model-prices",
    "summary": "Replace the workspace's model prices",
    "description": "Replaces the whole list (owners and admins). Applies to usage received afterwards without a reported cost; stored costs never change.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "prices": {
          "items": {
            "properties": {
              "provider": {
                "pattern": "^[a-z0-9_.-]{1,64}$",
                "type": "string",
                "examples": [
                  "anthropic"
                ]
              },
              "model_pattern": {
                "type": "string",
                "maxLength": 256,
                "pattern": "^[^\\s]{1,256}$",
                "description": "The whole model name, `*` a wildcard; the most specific match wins (fewest `*`, then longest).",
                "examples": [
                  "claude-sonnet-4*"
                ]
              },
              "effective_from": {
                "type": "string",
                "format": "date-time",
                "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
                "description": "From when the price applies (by the record’s occurred_at)."
              },
              "input": {
                "pattern": "^(0|[1-9]\\d{0,11})(\\.\\d{1,12})?$",
                "type": "string",
                "description": "USD per million input tokens (decimal string, at most 12 decimals).",
                "examples": [
                  "3"
                ]
              },
              "output": {
                "pattern": "^(0|[1-9]\\d{0,11})(\\.\\d{1,12})?$",
                "type": "string",
                "description": "USD per million output tokens.",
                "examples": [
                  "15"
                ]
              },
              "cache_read_input": {
                "pattern": "^(0|[1-9]\\d{0,11})(\\.\\d{1,12})?$",
                "type": [
                  "string",
                  "null"
                ],
                "description": "USD per million cache-read input tokens; default the input price.",
                "examples": [
                  "0.3"
                ]
              },
              "cache_creation_input": {
                "pattern": "^(0|[1-9]\\d{0,11})(\\.\\d{1,12})?$",
                "type": [
                  "string",
                  "null"
                ],
                "description": "USD per million cache-write input tokens; default the input price.",
                "examples": [
                  "3.75"
                ]
              },
              "reasoning_output": {
                "pattern": "^(0|[1-9]\\d{0,11})(\\.\\d{1,12})?$",
                "type": [
                  "string",
                  "null"
                ],
                "description": "USD per million reasoning output tokens; default the output price.",
                "examples": [
                  "15"
                ]
              }
            },
            "type": "object",
            "required": [
              "provider",
              "model_pattern",
              "effective_from",
              "input",
              "output"
            ],
            "title": "A model price",
            "additionalProperties": false
          },
          "type": "array",
          "maxItems": 1000
        }
      },
      "type": "object",
      "required": [
        "prices"
      ],
      "title": "A price list",
      "description": "Replaces the whole list.",
      "additionalProperties": false
    }
  },
  "oidc.callback": {
    "method": "GET",
    "path": "/auth/oidc/{provider}/callback",
    "summary": "Come back from a provider",
    "description": "Where the provider sends the browser back (the redirect URI to register with it). Checks `state` against this browser’s cookie, and the ID token; links the verified email to the member of the provider’s workspace (or creates one when the provider lets new people join and the domain is allowed), sets the refresh cookie and redirects to `return_to`. A refusal (unverified email, a domain that is not allowed, a `state` or code used already) is an HTML page that says why.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "provider": {
            "type": "string",
            "pattern": "^[a-z0-9][a-z0-9_-]{0,63}$",
            "examples": [
              "corp"
            ],
            "description": "The provider the sign-in started with."
          }
        },
        "required": [
          "provider"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "oidc.providers": {
    "method": "GET",
    "path": "/auth/providers",
    "summary": "How people sign in here",
    "description": "The single sign-on providers configured here (`data`, one “Sign in with …” button each) and whether password sign-in is on (`meta.password_login`).",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "oidc.start": {
    "method": "GET",
    "path": "/auth/oidc/{provider}/start",
    "summary": "Start signing in with a provider",
    "description": "A browser navigation (not an API call): redirects to the provider (authorization code with PKCE, `state` and `nonce`), bound to this browser by a short-lived cookie. An unknown provider, or one that cannot be reached, ends on an HTML page that says why.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "provider": {
            "type": "string",
            "pattern": "^[a-z0-9][a-z0-9_-]{0,63}$",
            "examples": [
              "corp"
            ],
            "description": "A provider id from `GET /v1/auth/providers`."
          }
        },
        "required": [
          "provider"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "operations.healthz": {
    "method": "GET",
    "path": "/healthz",
    "summary": "Liveness probe",
    "description": "The process serves HTTP; dependencies are not checked. No credential.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "operations.metrics": {
    "method": "GET",
    "path": "/metrics",
    "summary": "Prometheus metrics",
    "description": "The Prometheus text exposition of this replica. Needs the operator token when one is configured.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "operations.readyz": {
    "method": "GET",
    "path": "/readyz",
    "summary": "Readiness probe",
    "description": "Kafka and the reply consumer answer and the gateway is not draining; otherwise 503 naming what failed. No credential.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "operations.status": {
    "method": "GET",
    "path": "/status",
    "summary": "Status of every service",
    "description": "One request crosses the gateway, Kafka and every service’s database and comes back; 503 names the services that did not answer in time. Needs the operator token when one is configured.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "plate.assign": {
    "method": "POST",
    "path": "/plate/assign",
    "summary": "Put an item on a teammate's plate",
    "description": "Respects the assignee's daily capacity; a full day overflows to the next working day with room. Capacity holds under concurrent assignments.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "assignee_id": {
          "format": "uuid",
          "type": "string",
          "description": "A member of your workspace."
        },
        "title": {
          "type": "string",
          "maxLength": 500,
          "minLength": 1,
          "description": "What to do.",
          "examples": [
            "Review the release notes"
          ]
        },
        "plate_date": {
          "type": [
            "string",
            "null"
          ],
          "format": "date",
          "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
          "description": "Default: the assignee's today in the assignee's timezone; earlier dates are PLATE_DATE_IN_PAST."
        }
      },
      "type": "object",
      "required": [
        "assignee_id",
        "title"
      ],
      "additionalProperties": false
    }
  },
  "plate.complete": {
    "method": "PATCH",
    "path": "/plate/items/{item_id}",
    "summary": "Mark a plate item done",
    "description": "By the assignee or the assigner; idempotent. Others get 404.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "item_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The plate item id (a UUID)."
          }
        },
        "required": [
          "item_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "done": {
          "type": "boolean",
          "enum": [
            true
          ],
          "description": "Only `true`: a done item stops counting towards the day."
        }
      },
      "type": "object",
      "required": [
        "done"
      ],
      "additionalProperties": false
    }
  },
  "plate.day": {
    "method": "GET",
    "path": "/plate",
    "summary": "Read your plate for a day",
    "description": "Default: your today in your timezone. Done items are listed with `done: true`. Items come in creation order, a page at a time; `meta.cursor` fetches the next items of the same day.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1
          },
          "cursor": {
            "maxLength": 512,
            "type": "string",
            "description": "The `meta.cursor` of the previous page."
          },
          "date": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "Default: your today in your timezone."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "reports.activity": {
    "method": "GET",
    "path": "/reports/activity",
    "summary": "Report activity",
    "description": "Events per source and event type, in and outside sessions.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "from": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "First day of the period (inclusive), a calendar date in `tz`."
          },
          "to": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "Last day of the period (inclusive); at most 366 days after `from`."
          },
          "tz": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "Europe/Berlin"
            ],
            "description": "IANA time zone the days are cut in; default the caller's."
          },
          "group_by": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "member,week"
            ],
            "description": "Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only)."
          },
          "member_id": {
            "format": "uuid",
            "type": "string"
          },
          "member_kind": {
            "type": "string",
            "enum": [
              "human",
              "agent"
            ]
          },
          "work_type": {
            "type": "string",
            "enum": [
              "intentional",
              "reactive"
            ]
          },
          "project_id": {
            "format": "uuid",
            "type": "string"
          },
          "goal_id": {
            "format": "uuid",
            "type": "string"
          },
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Sessions report: page size (default 50)."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "Sessions report: `meta.cursor` of the previous page."
          }
        },
        "required": [
          "from",
          "to"
        ],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "reports.plate": {
    "method": "GET",
    "path": "/reports/plate",
    "summary": "Report plates",
    "description": "Per assignee and day: capacity, items assigned, done and overflowed; future days allowed.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "from": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "First day of the period (inclusive), a calendar date in `tz`."
          },
          "to": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "Last day of the period (inclusive); at most 366 days after `from`."
          },
          "tz": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "Europe/Berlin"
            ],
            "description": "IANA time zone the days are cut in; default the caller's."
          },
          "group_by": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "member,week"
            ],
            "description": "Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only)."
          },
          "member_id": {
            "format": "uuid",
            "type": "string"
          },
          "member_kind": {
            "type": "string",
            "enum": [
              "human",
              "agent"
            ]
          },
          "work_type": {
            "type": "string",
            "enum": [
              "intentional",
              "reactive"
            ]
          },
          "project_id": {
            "format": "uuid",
            "type": "string"
          },
          "goal_id": {
            "format": "uuid",
            "type": "string"
          },
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Sessions report: page size (default 50)."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "Sessions report: `meta.cursor` of the previous page."
          }
        },
        "required": [
          "from",
          "to"
        ],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "reports.sessions": {
    "method": "GET",
    "path": "/reports/sessions",
    "summary": "Report sessions",
    "description": "One row per session overlapping the period, newest first, with its events and spend.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "from": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "First day of the period (inclusive), a calendar date in `tz`."
          },
          "to": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "Last day of the period (inclusive); at most 366 days after `from`."
          },
          "tz": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "Europe/Berlin"
            ],
            "description": "IANA time zone the days are cut in; default the caller's."
          },
          "group_by": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "member,week"
            ],
            "description": "Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only)."
          },
          "member_id": {
            "format": "uuid",
            "type": "string"
          },
          "member_kind": {
            "type": "string",
            "enum": [
              "human",
              "agent"
            ]
          },
          "work_type": {
            "type": "string",
            "enum": [
              "intentional",
              "reactive"
            ]
          },
          "project_id": {
            "format": "uuid",
            "type": "string"
          },
          "goal_id": {
            "format": "uuid",
            "type": "string"
          },
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Sessions report: page size (default 50)."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "Sessions report: `meta.cursor` of the previous page."
          }
        },
        "required": [
          "from",
          "to"
        ],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "reports.summary": {
    "method": "GET",
    "path": "/reports/summary",
    "summary": "Report totals per group",
    "description": "Tracked and paused time, sessions, events in and outside sessions, usage cost and tokens for a period, grouped by up to two keys. Sessions crossing midnight in `tz` are split; a live session counts up to `meta.as_of`.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "from": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "First day of the period (inclusive), a calendar date in `tz`."
          },
          "to": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "Last day of the period (inclusive); at most 366 days after `from`."
          },
          "tz": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "Europe/Berlin"
            ],
            "description": "IANA time zone the days are cut in; default the caller's."
          },
          "group_by": {
            "type": "string",
            "maxLength": 64,
            "examples": [
              "member,week"
            ],
            "description": "Comma-separated, at most two of: `member`, `member_kind`, `work_type`, `project`, `goal`, `day`, `week` (summary only)."
          },
          "member_id": {
            "format": "uuid",
            "type": "string"
          },
          "member_kind": {
            "type": "string",
            "enum": [
              "human",
              "agent"
            ]
          },
          "work_type": {
            "type": "string",
            "enum": [
              "intentional",
              "reactive"
            ]
          },
          "project_id": {
            "format": "uuid",
            "type": "string"
          },
          "goal_id": {
            "format": "uuid",
            "type": "string"
          },
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Sessions report: page size (default 50)."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "Sessions report: `meta.cursor` of the previous page."
          }
        },
        "required": [
          "from",
          "to"
        ],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "sessions.close": {
    "method": "POST",
    "path": "/sessions/{session_id}/close",
    "summary": "Close a session",
    "description": "Active and paused sessions can be closed; a closed one is answered unchanged (idempotent). `closed_at` back-dates the close by up to 24 hours and is capped at the maximum session duration.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "session_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The session id (a UUID)."
          }
        },
        "required": [
          "session_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "closing_note": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 2000,
          "description": "Stored, not shown.",
          "examples": [
            "Fixed; the test was racing the session cache."
          ]
        },
        "closed_at": {
          "type": [
            "string",
            "null"
          ],
          "format": "date-time",
          "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
          "description": "Default now. Back-dates the close: at most 24 hours ago, not before started_at, not in the future (else 400); capped at started_at + the maximum session duration."
        }
      },
      "type": "object",
      "additionalProperties": false
    }
  },
  "sessions.list": {
    "method": "GET",
    "path": "/sessions",
    "summary": "List your sessions",
    "description": "Newest `started_at` first, ties by `session_id`; `from`/`to` are inclusive calendar dates in the member's profile time zone; pages never skip or repeat a session while sessions are added.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "state": {
            "type": "string",
            "enum": [
              "active",
              "paused",
              "closed"
            ]
          },
          "from": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "Inclusive calendar date of started_at, in the member's profile time zone."
          },
          "to": {
            "type": "string",
            "format": "date",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "description": "Inclusive, like from; not before from."
          },
          "goal_id": {
            "format": "uuid",
            "type": "string"
          },
          "project_id": {
            "format": "uuid",
            "type": "string"
          },
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Page size; default 50."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "Opaque; `meta.cursor` of the previous page, with the same filters."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "sessions.pause": {
    "method": "POST",
    "path": "/sessions/{session_id}/pause",
    "summary": "Pause a session",
    "description": "Only an active session can be paused (else 409).",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "session_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The session id (a UUID)."
          }
        },
        "required": [
          "session_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "pause_reason": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 500,
          "description": "Why the session is paused (stored, not shown).",
          "examples": [
            "Lunch break"
          ]
        }
      },
      "type": "object",
      "additionalProperties": false
    }
  },
  "sessions.resume": {
    "method": "POST",
    "path": "/sessions/{session_id}/resume",
    "summary": "Resume a session",
    "description": "Only a paused session can be resumed (else 409). No body.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "session_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The session id (a UUID)."
          }
        },
        "required": [
          "session_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "sessions.start": {
    "method": "POST",
    "path": "/sessions",
    "summary": "Start or record a session",
    "description": "`timer` starts a live session now and closes the previous live one at the new `started_at`. `manual` records a finished block, stored closed; it never closes a live session and may overlap others. With `idempotency_key`, a retry with the same body answers 201 with the session as it is now.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "intent_text": {
          "type": "string",
          "maxLength": 500,
          "description": "What the member is working on.",
          "examples": [
            "Fix the flaky login test"
          ]
        },
        "source": {
          "type": "string",
          "enum": [
            "timer",
            "manual"
          ],
          "description": "`timer` starts a live session now and closes the previous live one; `manual` records a finished block."
        },
        "goal_id": {
          "format": "uuid",
          "type": [
            "string",
            "null"
          ]
        },
        "task_id": {
          "format": "uuid",
          "type": [
            "string",
            "null"
          ]
        },
        "project_id": {
          "format": "uuid",
          "type": [
            "string",
            "null"
          ]
        },
        "estimated_duration_min": {
          "maximum": 1440,
          "type": [
            "integer",
            "null"
          ],
          "minimum": 1,
          "description": "Minutes."
        },
        "work_type": {
          "type": [
            "string",
            "null"
          ],
          "enum": [
            "intentional",
            "reactive",
            null
          ],
          "description": "What kind of work: planned (`intentional`, the default) or answering something that came up (`reactive`)."
        },
        "user_tags": {
          "items": {
            "type": "string",
            "maxLength": 64,
            "minLength": 1
          },
          "type": [
            "array",
            "null"
          ],
          "uniqueItems": true,
          "maxItems": 20,
          "description": "Labels of your own: at most 20 distinct tags of 1 to 64 characters.",
          "examples": [
            [
              "billing",
              "urgent"
            ]
          ]
        },
        "started_at": {
          "type": [
            "string",
            "null"
          ],
          "format": "date-time",
          "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
          "description": "Required when source is `manual` (RFC 3339 with an offset); not for `timer`."
        },
        "ended_at": {
          "type": [
            "string",
            "null"
          ],
          "format": "date-time",
          "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
          "description": "Required when source is `manual`: after started_at, at most 1 minute in the future, at most the maximum session duration (12 hours) after started_at."
        },
        "idempotency_key": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 255,
          "minLength": 1,
          "description": "Scoped to the member and kept forever. A retry with the same key and body answers 201 with the session as it is now; another body is 409 IDEMPOTENCY_KEY_REUSED."
        }
      },
      "type": "object",
      "required": [
        "intent_text",
        "source"
      ],
      "additionalProperties": false
    }
  },
  "signIn.acceptInvite": {
    "method": "POST",
    "path": "/auth/accept-invite",
    "summary": "Accept an invite",
    "description": "The link’s `token` works once, before it expires: creates the member in the inviter’s workspace and signs it in (refresh cookie). A used, withdrawn or expired link is 401 `INVALID_CREDENTIALS`.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "token": {
          "pattern": "^[A-Za-z0-9_-]{43}$",
          "type": "string",
          "description": "The `token` of the invite link.",
          "examples": [
            "8Jd0b2m3Qx4Zr6Tt9LwKp1Vn5Hc7Ys0Ua2Ei4Og6Ik8"
          ]
        },
        "password": {
          "type": "string",
          "maxLength": 256,
          "minLength": 12,
          "description": "The new member’s password: 12 to 256 characters.",
          "examples": [
            "correct horse battery staple"
          ]
        },
        "display_name": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 200,
          "minLength": 1
        },
        "timezone": {
          "type": [
            "string",
            "null"
          ],
          "description": "IANA time zone name; UTC when absent.",
          "examples": [
            "Europe/Berlin"
          ]
        }
      },
      "type": "object",
      "required": [
        "token",
        "password"
      ],
      "additionalProperties": false
    }
  },
  "signIn.changePassword": {
    "method": "POST",
    "path": "/me/password",
    "summary": "Change your password",
    "description": "Checks the current one (400 when it is not right); ends your other browser sessions (this one stays).",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "current_password": {
          "type": "string",
          "maxLength": 256,
          "minLength": 1,
          "description": "The password in use now.",
          "examples": [
            "correct horse battery staple"
          ]
        },
        "new_password": {
          "type": "string",
          "maxLength": 256,
          "minLength": 12,
          "description": "12 to 256 characters.",
          "examples": [
            "a longer passphrase than before"
          ]
        }
      },
      "type": "object",
      "required": [
        "current_password",
        "new_password"
      ],
      "additionalProperties": false
    }
  },
  "signIn.end": {
    "method": "DELETE",
    "path": "/auth/sessions/{sid}",
    "summary": "End a browser session",
    "description": "Its access tokens are refused by every gateway replica within 5 seconds. Another member’s session is a 404.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "sid": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The browser session (the `sid` of its access tokens)."
          }
        },
        "required": [
          "sid"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "signIn.login": {
    "method": "POST",
    "path": "/auth/login",
    "summary": "Sign in with email and password",
    "description": "Answers a session JWT and sets the refresh cookie (`HttpOnly; Secure; SameSite=Strict; Path=/v1/auth`). An unknown email and a wrong password get the same 401 `INVALID_CREDENTIALS`; with two-factor on, send `totp_code` or `recovery_code` (else 401 `SECOND_FACTOR_REQUIRED`). Five failures per email and client address in 15 minutes: 429 for that pair only.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "email": {
          "maxLength": 320,
          "type": "string",
          "format": "email",
          "description": "The member’s email (compared case-insensitively).",
          "examples": [
            "ada@example.com"
          ]
        },
        "password": {
          "type": "string",
          "maxLength": 256,
          "minLength": 1,
          "description": "The password (12 to 256 characters when set).",
          "examples": [
            "correct horse battery staple"
          ]
        },
        "totp_code": {
          "pattern": "^\\d{6}$",
          "type": [
            "string",
            "null"
          ],
          "description": "The current 6-digit code of the authenticator app, when two-factor is on.",
          "examples": [
            "123456"
          ]
        },
        "recovery_code": {
          "maxLength": 64,
          "type": [
            "string",
            "null"
          ],
          "minLength": 1,
          "description": "One of the recovery codes, instead of `totp_code`; each works once."
        }
      },
      "type": "object",
      "required": [
        "email",
        "password"
      ],
      "additionalProperties": false
    }
  },
  "signIn.logout": {
    "method": "POST",
    "path": "/auth/logout",
    "summary": "Sign out",
    "description": "Ends the browser session of the refresh cookie (from the app’s own origin) and clears the cookie.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "signIn.refresh": {
    "method": "POST",
    "path": "/auth/refresh",
    "summary": "Renew the access token",
    "description": "With the refresh cookie only (no body), from the app’s own origin (`Origin`, else 403). Rotates the refresh secret; presenting a rotated-out one ends that browser session.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "signIn.sessions": {
    "method": "GET",
    "path": "/auth/sessions",
    "summary": "List your browser sessions",
    "description": "Sessions that have not ended, newest first.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "tokens.create": {
    "method": "POST",
    "path": "/tokens",
    "summary": "Create an API token",
    "description": "The full token is in this response only.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "name": {
          "type": "string",
          "maxLength": 100,
          "minLength": 1,
          "description": "A label to recognise the token by.",
          "examples": [
            "CI deploys"
          ]
        },
        "scope": {
          "type": "string",
          "enum": [
            "full",
            "report_only"
          ],
          "description": "`full` acts as the member in everything; `report_only` may only report its own sessions and activity, and read."
        },
        "expires_in_days": {
          "maximum": 365,
          "type": [
            "integer",
            "null"
          ],
          "minimum": 1,
          "description": "The token stops working this many days after creation (1 to 365); never when absent.",
          "examples": [
            90
          ]
        }
      },
      "type": "object",
      "required": [
        "name",
        "scope"
      ],
      "additionalProperties": false
    }
  },
  "tokens.list": {
    "method": "GET",
    "path": "/tokens",
    "summary": "List your API tokens",
    "description": "Newest first, never with a secret; revoked ones carry `revoked_at`.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1
          },
          "cursor": {
            "maxLength": 512,
            "type": "string",
            "description": "The `meta.cursor` of the previous page."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "tokens.rename": {
    "method": "PATCH",
    "path": "/tokens/{token_id}",
    "summary": "Rename an API token",
    "description": "Another member's token is a 404.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "token_id": {
            "pattern": "^[a-z2-7]{8}$",
            "type": "string",
            "examples": [
              "k3v7q2xa"
            ],
            "description": "The public id of the token (its short segment)."
          }
        },
        "required": [
          "token_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "name": {
          "type": "string",
          "maxLength": 100,
          "minLength": 1,
          "description": "A new label for the token.",
          "examples": [
            "CI deploys (prod)"
          ]
        }
      },
      "type": "object",
      "required": [
        "name"
      ],
      "additionalProperties": false
    }
  },
  "tokens.revoke": {
    "method": "DELETE",
    "path": "/tokens/{token_id}",
    "summary": "Revoke an API token",
    "description": "Idempotent. Every gateway replica refuses the token within 5 seconds. Another member's token is a 404.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "token_id": {
            "pattern": "^[a-z2-7]{8}$",
            "type": "string",
            "examples": [
              "k3v7q2xa"
            ],
            "description": "The public id of the token (its short segment)."
          }
        },
        "required": [
          "token_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "twoFactor.confirm": {
    "method": "POST",
    "path": "/me/totp/confirm",
    "summary": "Turn two-factor on",
    "description": "With a code of the new secret; answers ten one-time recovery codes, once.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "code": {
          "pattern": "^\\d{6}$",
          "type": "string",
          "description": "The current 6-digit code of the authenticator app.",
          "examples": [
            "492039"
          ]
        }
      },
      "type": "object",
      "required": [
        "code"
      ],
      "additionalProperties": false
    }
  },
  "twoFactor.disable": {
    "method": "DELETE",
    "path": "/me/totp",
    "summary": "Turn two-factor off",
    "description": "With a current code.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "code": {
          "pattern": "^\\d{6}$",
          "type": "string",
          "description": "The current 6-digit code of the authenticator app.",
          "examples": [
            "492039"
          ]
        }
      },
      "type": "object",
      "required": [
        "code"
      ],
      "additionalProperties": false
    }
  },
  "twoFactor.start": {
    "method": "POST",
    "path": "/me/totp",
    "summary": "Start two-factor enrolment",
    "description": "A new TOTP secret (SHA-1, 30 s, 6 digits); confirm with a code.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "twoFactor.updateWorkspace": {
    "method": "PATCH",
    "path": "/workspace",
    "summary": "Change the workspace’s settings",
    "description": "Owners. `require_two_factor`: `none`, `admins` or `all`; setting anything but `none` needs two-factor on for yourself. Browser sessions of the members it covers may only enrol (403 `TWO_FACTOR_REQUIRED`) until they have; API tokens are not affected.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "require_two_factor": {
          "type": "string",
          "enum": [
            "none",
            "admins",
            "all"
          ],
          "description": "Whose browser sessions must have two-factor on: nobody, owners and admins, or everyone."
        }
      },
      "type": "object",
      "required": [
        "require_two_factor"
      ],
      "additionalProperties": false
    }
  },
  "usage.list": {
    "method": "GET",
    "path": "/usage",
    "summary": "Read your usage",
    "description": "Newest first; `meta.cursor` fetches the next page.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "from": {
            "type": "string",
            "format": "date-time",
            "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$"
          },
          "to": {
            "type": "string",
            "format": "date-time",
            "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$"
          },
          "session_id": {
            "format": "uuid",
            "type": "string"
          },
          "provider": {
            "pattern": "^[a-z0-9_.-]{1,64}$",
            "type": "string"
          },
          "model": {
            "type": "string",
            "maxLength": 256
          },
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1
          },
          "cursor": {
            "type": "string",
            "maxLength": 512
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "usage.report": {
    "method": "POST",
    "path": "/usage",
    "summary": "Report usage",
    "description": "One usage record, or `{ usage: [...] }` with at most 100: what a model or tool call consumed (tokens, cost). All or nothing; retries with the same `provider` and `external_id` are deduplicated. 202 means stored.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "oneOf": [
        {
          "properties": {
            "external_id": {
              "type": "string",
              "maxLength": 256,
              "minLength": 1,
              "description": "The provider's response or message id: retries with the same `provider` and `external_id` are stored once, forever.",
              "examples": [
                "msg_01XFDUDYJgAACzvnptvVoYEL"
              ]
            },
            "provider": {
              "pattern": "^[a-z0-9_.-]{1,64}$",
              "type": "string",
              "description": "Provider slug (`gen_ai.provider.name`), e.g. `anthropic`, `openai`.",
              "examples": [
                "anthropic"
              ]
            },
            "model": {
              "type": [
                "string",
                "null"
              ],
              "maxLength": 256,
              "minLength": 1,
              "description": "The model (`gen_ai.response.model`); required unless `operation` is `execute_tool`.",
              "examples": [
                "claude-sonnet-4-5"
              ]
            },
            "operation": {
              "description": "The operation (`gen_ai.operation.name`), e.g. `chat`, `embeddings`, `execute_tool`.",
              "anyOf": [
                {
                  "pattern": "^[a-z0-9_.-]{1,64}$",
                  "type": "string",
                  "default": "chat",
                  "examples": [
                    "chat"
                  ]
                },
                {
                  "type": "null"
                }
              ]
            },
            "occurred_at": {
              "type": [
                "string",
                "null"
              ],
              "format": "date-time",
              "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
              "description": "When it happened (RFC 3339 with an offset), at most 10 minutes ahead. Default: the time of receipt."
            },
            "duration_ms": {
              "maximum": 86400000,
              "type": [
                "integer",
                "null"
              ],
              "minimum": 0,
              "description": "How long the call took, in milliseconds (0 .. 86,400,000).",
              "examples": [
                2300
              ]
            },
            "input_tokens": {
              "maximum": 2000000000,
              "type": [
                "integer",
                "null"
              ],
              "minimum": 0,
              "description": "Input tokens (`gen_ai.usage.input_tokens`), cache reads and writes included (an integer 0 .. 2,000,000,000).",
              "examples": [
                1200
              ]
            },
            "output_tokens": {
              "maximum": 2000000000,
              "type": [
                "integer",
                "null"
              ],
              "minimum": 0,
              "description": "Output tokens (`gen_ai.usage.output_tokens`), reasoning included (an integer 0 .. 2,000,000,000).",
              "examples": [
                1200
              ]
            },
            "cache_read_input_tokens": {
              "maximum": 2000000000,
              "type": [
                "integer",
                "null"
              ],
              "minimum": 0,
              "description": "Input tokens read from the provider cache (`gen_ai.usage.cache_read.input_tokens`), part of `input_tokens` (an integer 0 .. 2,000,000,000).",
              "examples": [
                1200
              ]
            },
            "cache_creation_input_tokens": {
              "maximum": 2000000000,
              "type": [
                "integer",
                "null"
              ],
              "minimum": 0,
              "description": "Input tokens written to the provider cache (`gen_ai.usage.cache_creation.input_tokens`), part of `input_tokens` (an integer 0 .. 2,000,000,000).",
              "examples": [
                1200
              ]
            },
            "reasoning_output_tokens": {
              "maximum": 2000000000,
              "type": [
                "integer",
                "null"
              ],
              "minimum": 0,
              "description": "Reasoning tokens (`gen_ai.usage.reasoning.output_tokens`), part of `output_tokens` (an integer 0 .. 2,000,000,000).",
              "examples": [
                1200
              ]
            },
            "cost": {
              "description": "The cost as the provider billed it; without it the workspace price list computes one at receipt.",
              "anyOf": [
                {
                  "properties": {
                    "amount": {
                      "pattern": "^(0|[1-9]\\d{0,17})(\\.\\d{1,9})?$",
                      "type": "string",
                      "description": "Decimal string, at most 9 decimals.",
                      "examples": [
                        "0.004215"
                      ]
                    },
                    "currency": {
                      "type": "string",
                      "enum": [
                        "USD"
                      ],
                      "description": "Always `USD`.",
                      "examples": [
                        "USD"
                      ]
                    }
                  },
                  "type": "object",
                  "required": [
                    "amount",
                    "currency"
                  ],
                  "title": "Cost",
                  "description": "An exact amount: a decimal string with at most 9 decimals, never a JSON number.",
                  "additionalProperties": false
                },
                {
                  "type": "null"
                }
              ]
            },
            "session_id": {
              "format": "uuid",
              "type": [
                "string",
                "null"
              ],
              "description": "One of the caller's own sessions: the record is linked to it, whatever its time would link it to."
            },
            "conversation_id": {
              "type": [
                "string",
                "null"
              ],
              "maxLength": 256,
              "description": "The conversation (`gen_ai.conversation.id`).",
              "examples": [
                "conv_5f2a"
              ]
            },
            "tool_name": {
              "type": [
                "string",
                "null"
              ],
              "maxLength": 128,
              "description": "The tool called (`gen_ai.tool.name`).",
              "examples": [
                "web_search"
              ]
            },
            "attributes": {
              "type": [
                "object",
                "null"
              ],
              "additionalProperties": true,
              "description": "Metadata only, at most 8192 bytes as UTF-8 JSON: no secrets, and none of the content keys `gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, `prompt`, `completion`, `messages` at any depth.",
              "examples": [
                {
                  "gen_ai.request.temperature": 0.2,
                  "agent": "triage-bot"
                }
              ]
            }
          },
          "type": "object",
          "required": [
            "external_id",
            "provider"
          ],
          "title": "One usage record",
          "additionalProperties": false
        },
        {
          "properties": {
            "usage": {
              "items": {
                "properties": {
                  "external_id": {
                    "type": "string",
                    "maxLength": 256,
                    "minLength": 1,
                    "description": "The provider's response or message id: retries with the same `provider` and `external_id` are stored once, forever.",
                    "examples": [
                      "msg_01XFDUDYJgAACzvnptvVoYEL"
                    ]
                  },
                  "provider": {
                    "pattern": "^[a-z0-9_.-]{1,64}$",
                    "type": "string",
                    "description": "Provider slug (`gen_ai.provider.name`), e.g. `anthropic`, `openai`.",
                    "examples": [
                      "anthropic"
                    ]
                  },
                  "model": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "maxLength": 256,
                    "minLength": 1,
                    "description": "The model (`gen_ai.response.model`); required unless `operation` is `execute_tool`.",
                    "examples": [
                      "claude-sonnet-4-5"
                    ]
                  },
                  "operation": {
                    "description": "The operation (`gen_ai.operation.name`), e.g. `chat`, `embeddings`, `execute_tool`.",
                    "anyOf": [
                      {
                        "pattern": "^[a-z0-9_.-]{1,64}$",
                        "type": "string",
                        "default": "chat",
                        "examples": [
                          "chat"
                        ]
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "occurred_at": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date-time",
                    "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
                    "description": "When it happened (RFC 3339 with an offset), at most 10 minutes ahead. Default: the time of receipt."
                  },
                  "duration_ms": {
                    "maximum": 86400000,
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "description": "How long the call took, in milliseconds (0 .. 86,400,000).",
                    "examples": [
                      2300
                    ]
                  },
                  "input_tokens": {
                    "maximum": 2000000000,
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "description": "Input tokens (`gen_ai.usage.input_tokens`), cache reads and writes included (an integer 0 .. 2,000,000,000).",
                    "examples": [
                      1200
                    ]
                  },
                  "output_tokens": {
                    "maximum": 2000000000,
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "description": "Output tokens (`gen_ai.usage.output_tokens`), reasoning included (an integer 0 .. 2,000,000,000).",
                    "examples": [
                      1200
                    ]
                  },
                  "cache_read_input_tokens": {
                    "maximum": 2000000000,
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "description": "Input tokens read from the provider cache (`gen_ai.usage.cache_read.input_tokens`), part of `input_tokens` (an integer 0 .. 2,000,000,000).",
                    "examples": [
                      1200
                    ]
                  },
                  "cache_creation_input_tokens": {
                    "maximum": 2000000000,
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "description": "Input tokens written to the provider cache (`gen_ai.usage.cache_creation.input_tokens`), part of `input_tokens` (an integer 0 .. 2,000,000,000).",
                    "examples": [
                      1200
                    ]
                  },
                  "reasoning_output_tokens": {
                    "maximum": 2000000000,
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "description": "Reasoning tokens (`gen_ai.usage.reasoning.output_tokens`), part of `output_tokens` (an integer 0 .. 2,000,000,000).",
                    "examples": [
                      1200
                    ]
                  },
                  "cost": {
                    "description": "The cost as the provider billed it; without it the workspace price list computes one at receipt.",
                    "anyOf": [
                      {
                        "properties": {
                          "amount": {
                            "pattern": "^(0|[1-9]\\d{0,17})(\\.\\d{1,9})?$",
                            "type": "string",
                            "description": "Decimal string, at most 9 decimals.",
                            "examples": [
                              "0.004215"
                            ]
                          },
                          "currency": {
                            "type": "string",
                            "enum": [
                              "USD"
                            ],
                            "description": "Always `USD`.",
                            "examples": [
                              "USD"
                            ]
                          }
                        },
                        "type": "object",
                        "required": [
                          "amount",
                          "currency"
                        ],
                        "title": "Cost",
                        "description": "An exact amount: a decimal string with at most 9 decimals, never a JSON number.",
                        "additionalProperties": false
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "session_id": {
                    "format": "uuid",
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "One of the caller's own sessions: the record is linked to it, whatever its time would link it to."
                  },
                  "conversation_id": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "maxLength": 256,
                    "description": "The conversation (`gen_ai.conversation.id`).",
                    "examples": [
                      "conv_5f2a"
                    ]
                  },
                  "tool_name": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "maxLength": 128,
                    "description": "The tool called (`gen_ai.tool.name`).",
                    "examples": [
                      "web_search"
                    ]
                  },
                  "attributes": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "additionalProperties": true,
                    "description": "Metadata only, at most 8192 bytes as UTF-8 JSON: no secrets, and none of the content keys `gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, `prompt`, `completion`, `messages` at any depth.",
                    "examples": [
                      {
                        "gen_ai.request.temperature": 0.2,
                        "agent": "triage-bot"
                      }
                    ]
                  }
                },
                "type": "object",
                "required": [
                  "external_id",
                  "provider"
                ],
                "title": "One usage record",
                "additionalProperties": false
              },
              "type": "array",
              "maxItems": 100,
              "minItems": 1
            }
          },
          "type": "object",
          "required": [
            "usage"
          ],
          "title": "A batch of usage records",
          "description": "At most 100 records, stored all or nothing.",
          "additionalProperties": false
        }
      ]
    }
  },
  "webhookEndpoints.create": {
    "method": "POST",
    "path": "/webhook-endpoints",
    "summary": "Register a webhook endpoint",
    "description": "Messages of the named event types are POSTed to `url`, signed as Standard Webhooks. The secret is shown here and at rotation only. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "url": {
          "maxLength": 2048,
          "type": "string",
          "description": "Where messages are POSTed: https, no user info, at most 2,048 characters, never a private, loopback, link-local or metadata address (checked at every delivery).",
          "examples": [
            "https://hooks.example.com/worktrack"
          ]
        },
        "event_types": {
          "items": {
            "type": "string",
            "enum": [
              "session.started",
              "session.paused",
              "session.resumed",
              "session.closed",
              "plate.item.assigned",
              "member.joined",
              "member.deactivated",
              "activity.event.linked"
            ]
          },
          "type": "array",
          "maxItems": 50,
          "minItems": 1,
          "description": "1 to 50 event types (no wildcards).",
          "examples": [
            [
              "session.started",
              "session.closed"
            ]
          ]
        },
        "description": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 500,
          "description": "A label for you."
        }
      },
      "type": "object",
      "required": [
        "url",
        "event_types"
      ],
      "additionalProperties": false
    }
  },
  "webhookEndpoints.deliveries": {
    "method": "GET",
    "path": "/webhook-endpoints/{endpoint_id}/deliveries",
    "summary": "Read an endpoint's delivery log",
    "description": "Every attempt, newest first, kept 30 days. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "endpoint_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The endpoint id (a UUID)."
          }
        },
        "required": [
          "endpoint_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Page size, 1–100; default 50."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "`meta.cursor` of the previous page."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "webhookEndpoints.get": {
    "method": "GET",
    "path": "/webhook-endpoints/{endpoint_id}",
    "summary": "Read a webhook endpoint",
    "description": "Never with its secret. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "endpoint_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The endpoint id (a UUID)."
          }
        },
        "required": [
          "endpoint_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "webhookEndpoints.list": {
    "method": "GET",
    "path": "/webhook-endpoints",
    "summary": "List the workspace's webhook endpoints",
    "description": "Oldest first, never with a secret. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {
          "limit": {
            "maximum": 100,
            "type": "integer",
            "minimum": 1,
            "description": "Page size, 1–100; default 50."
          },
          "cursor": {
            "type": "string",
            "maxLength": 512,
            "description": "`meta.cursor` of the previous page."
          }
        },
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "webhookEndpoints.recover": {
    "method": "POST",
    "path": "/webhook-endpoints/{endpoint_id}/recover",
    "summary": "Re-send failed messages",
    "description": "Every message created since `since` whose latest attempt to this endpoint failed goes again, same webhook-id and body. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "endpoint_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The endpoint id (a UUID)."
          }
        },
        "required": [
          "endpoint_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "since": {
          "type": "string",
          "format": "date-time",
          "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
          "description": "Re-send every message created since then whose latest attempt failed (RFC 3339 with an offset)."
        }
      },
      "type": "object",
      "required": [
        "since"
      ],
      "additionalProperties": false
    }
  },
  "webhookEndpoints.remove": {
    "method": "DELETE",
    "path": "/webhook-endpoints/{endpoint_id}",
    "summary": "Delete a webhook endpoint",
    "description": "Nothing more is sent to it; its delivery log goes with it. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "endpoint_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The endpoint id (a UUID)."
          }
        },
        "required": [
          "endpoint_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "webhookEndpoints.rotate": {
    "method": "POST",
    "path": "/webhook-endpoints/{endpoint_id}/rotate-secret",
    "summary": "Rotate a webhook endpoint's secret",
    "description": "A new secret, shown once; for 24 hours every message carries a signature by the old one too. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "endpoint_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The endpoint id (a UUID)."
          }
        },
        "required": [
          "endpoint_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "webhookEndpoints.test": {
    "method": "POST",
    "path": "/webhook-endpoints/{endpoint_id}/test",
    "summary": "Send a test message",
    "description": "A signed `webhook.test` message to this endpoint; its attempts appear in the log. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "endpoint_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The endpoint id (a UUID)."
          }
        },
        "required": [
          "endpoint_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  },
  "webhookEndpoints.update": {
    "method": "PATCH",
    "path": "/webhook-endpoints/{endpoint_id}",
    "summary": "Change a webhook endpoint",
    "description": "Only the fields given change; `enabled: true` resumes a disabled endpoint. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "endpoint_id": {
            "format": "uuid",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            "description": "The endpoint id (a UUID)."
          }
        },
        "required": [
          "endpoint_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": {
      "properties": {
        "url": {
          "maxLength": 2048,
          "type": [
            "string",
            "null"
          ],
          "description": "Where messages are POSTed: https, no user info, at most 2,048 characters, never a private, loopback, link-local or metadata address (checked at every delivery)."
        },
        "event_types": {
          "items": {
            "type": "string",
            "enum": [
              "session.started",
              "session.paused",
              "session.resumed",
              "session.closed",
              "plate.item.assigned",
              "member.joined",
              "member.deactivated",
              "activity.event.linked"
            ]
          },
          "type": [
            "array",
            "null"
          ],
          "maxItems": 50,
          "minItems": 1,
          "description": "1 to 50 event types; replaces the list."
        },
        "description": {
          "type": [
            "string",
            "null"
          ],
          "maxLength": 500,
          "description": "A label for you."
        },
        "enabled": {
          "type": [
            "boolean",
            "null"
          ],
          "description": "false stops deliveries; true resumes them (and clears `disabled_reason`)."
        }
      },
      "type": "object",
      "additionalProperties": false
    }
  },
  "webhookMessages.replay": {
    "method": "POST",
    "path": "/webhook-messages/{webhook_id}/replay",
    "summary": "Replay a webhook message",
    "description": "Sends the message again, same webhook-id and body, to every endpoint of the workspace it went to. Owners and admins only; plain members get 403.",
    "params": {
      "path": {
        "type": "object",
        "properties": {
          "webhook_id": {
            "pattern": "^msg_[0-9a-f]{32}$",
            "type": "string",
            "examples": [
              "msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90"
            ],
            "description": "The webhook-id of a message (`msg_` and 32 hex digits)."
          }
        },
        "required": [
          "webhook_id"
        ],
        "additionalProperties": false
      },
      "query": {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
      }
    },
    "body": null
  }
} as const;

export type OperationId = keyof typeof REQUEST_SCHEMAS;
