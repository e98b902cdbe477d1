/// The API as OpenAPI 3.1, served at `/openapi.json`. A test checks it against the routes the
/// service declares: no route undocumented, no documented route missing.
enum OpenAPIDocument {
    static let json = #"""
        {
         "openapi": "3.1.0",
         "info": {
          "title": "Bouncer",
          "version": "1.0.0",
          "description": "Moderation for chat: messages are checked at send time against rules and delivered, bounced back to their author with a localized alert, flagged, masked, shadowed or removed. Choices where the contract is silent are noted in descriptions: a missing token is 401 `unauthenticated`, a bad one 401 `invalid_token`; a malformed or unknown `?locale=` falls back to the default; a JSON body without Content-Type is read as JSON; unknown settings are 400; import refusals carry `line` (text) or `index` (JSON); system flags from flag and mask_flag rules have reason `rule_match`."
         },
         "servers": [
          {
           "url": "http://127.0.0.1:8080"
          }
         ],
         "security": [
          {
           "bearer": []
          }
         ],
         "paths": {
          "/healthz": {
           "get": {
            "summary": "Liveness",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "properties": {
                  "status": {
                   "const": "ok"
                  }
                 }
                }
               }
              }
             }
            },
            "x-bouncer-role": "anyone",
            "security": [],
            "tags": [
             "operations"
            ]
           }
          },
          "/readyz": {
           "get": {
            "summary": "Readiness: the store is open and migrated",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "properties": {
                  "status": {
                   "const": "ready"
                  }
                 }
                }
               }
              }
             },
             "503": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "anyone",
            "security": [],
            "tags": [
             "operations"
            ]
           }
          },
          "/metrics": {
           "get": {
            "summary": "Prometheus metrics",
            "responses": {
             "200": {
              "description": "Prometheus text format",
              "content": {
               "text/plain": {
                "schema": {
                 "type": "string"
                }
               }
              }
             }
            },
            "x-bouncer-role": "anyone",
            "security": [],
            "tags": [
             "operations"
            ]
           }
          },
          "/openapi.json": {
           "get": {
            "summary": "This document",
            "responses": {
             "200": {
              "description": "OpenAPI 3.1",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              }
             }
            },
            "x-bouncer-role": "anyone",
            "security": [],
            "tags": [
             "operations"
            ]
           }
          },
          "/v1/me": {
           "get": {
            "summary": "Who the token speaks for (Bouncer's addition)",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Me"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "tags": [
             "identity"
            ]
           }
          },
          "/v1/localization": {
           "get": {
            "summary": "Texts in the request's language",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Strings"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             },
             {
              "name": "keys",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "Comma-separated keys, at most 200."
             }
            ],
            "tags": [
             "localization"
            ]
           }
          },
          "/v1/localization/locales": {
           "get": {
            "summary": "Bundled and overridden locales",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Locales"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "tags": [
             "localization"
            ]
           }
          },
          "/v1/localization/{locale}": {
           "get": {
            "summary": "The effective texts of one locale and which keys are overridden",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/LocaleStrings"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "locale",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$",
               "maxLength": 35
              },
              "description": "A language tag like `fr` or `pt-BR`."
             }
            ],
            "tags": [
             "localization"
            ]
           },
           "put": {
            "summary": "Override texts (merged; all or nothing)",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/LocaleStrings"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "parameters": [
             {
              "name": "locale",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$",
               "maxLength": 35
              },
              "description": "A language tag like `fr` or `pt-BR`."
             }
            ],
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/StringsUpdate"
               }
              },
              "text/plain": {
               "schema": {
                "type": "string",
                "description": "A Localizable.strings file"
               }
              }
             }
            },
            "tags": [
             "localization"
            ]
           }
          },
          "/v1/localization/{locale}/{key}": {
           "delete": {
            "summary": "Drop one override",
            "responses": {
             "204": {
              "description": "Dropped"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "parameters": [
             {
              "name": "locale",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$",
               "maxLength": 35
              },
              "description": "A language tag like `fr` or `pt-BR`."
             },
             {
              "name": "key",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "tags": [
             "localization"
            ]
           }
          },
          "/v1/rules": {
           "get": {
            "summary": "List rules",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "rules",
                  "next_cursor"
                 ],
                 "properties": {
                  "rules": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Rule"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "limit",
              "in": "query",
              "required": false,
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 200,
               "default": 50
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_-]{1,512}$"
              },
              "description": "Opaque: the `next_cursor` of the page before. One this service did not give out is 400 `invalid_cursor`."
             },
             {
              "name": "kind",
              "in": "query",
              "required": false,
              "schema": {
               "$ref": "#/components/schemas/RuleKind"
              }
             },
             {
              "name": "action",
              "in": "query",
              "required": false,
              "schema": {
               "$ref": "#/components/schemas/RuleAction"
              }
             },
             {
              "name": "enabled",
              "in": "query",
              "required": false,
              "schema": {
               "type": "boolean"
              }
             },
             {
              "name": "q",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "Searched in names and patterns"
             }
            ],
            "tags": [
             "rules"
            ]
           },
           "post": {
            "summary": "Create a rule",
            "responses": {
             "201": {
              "description": "Created",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Rule"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             },
             "422": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/RuleCreate"
               }
              }
             }
            },
            "tags": [
             "rules"
            ]
           }
          },
          "/v1/rules/{id}": {
           "get": {
            "summary": "A rule",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Rule"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "tags": [
             "rules"
            ]
           },
           "patch": {
            "summary": "Change a rule",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Rule"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             },
             "422": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/RuleInput"
               }
              }
             }
            },
            "tags": [
             "rules"
            ]
           },
           "delete": {
            "summary": "Delete a rule",
            "responses": {
             "204": {
              "description": "Deleted"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "tags": [
             "rules"
            ]
           }
          },
          "/v1/rules/import": {
           "post": {
            "summary": "Import up to 100,000 rules, all or nothing",
            "responses": {
             "201": {
              "description": "Imported",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "properties": {
                  "imported": {
                   "type": "integer"
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "413": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             },
             "422": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "parameters": [
             {
              "name": "kind",
              "in": "query",
              "required": false,
              "schema": {
               "$ref": "#/components/schemas/RuleKind"
              },
              "description": "For text/plain bodies"
             },
             {
              "name": "action",
              "in": "query",
              "required": false,
              "schema": {
               "$ref": "#/components/schemas/RuleAction"
              },
              "description": "For text/plain bodies"
             }
            ],
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "type": "object",
                "required": [
                 "rules"
                ],
                "properties": {
                 "rules": {
                  "type": "array",
                  "items": {
                   "$ref": "#/components/schemas/RuleCreate"
                  },
                  "minItems": 1,
                  "maxItems": 100000
                 }
                }
               }
              },
              "text/plain": {
               "schema": {
                "type": "string",
                "pattern": "(^|\\n)[ \\t]*[^\\s#]",
                "description": "One pattern a line, with `kind` (default word) and `action` from the query; blank lines and lines starting with # are skipped. At least one pattern."
               }
              }
             }
            },
            "tags": [
             "rules"
            ]
           }
          },
          "/v1/moderation/check": {
           "post": {
            "summary": "The verdict a text would get",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Verdict"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "type": "object",
                "required": [
                 "text"
                ],
                "properties": {
                 "text": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 5000,
                  "pattern": "[^\\t-\\r \\u0085\\u00A0\\u00AD\\u034F\\u061C\\u115F\\u1160\\u1680\\u17B4\\u17B5\\u180B-\\u180F\\u2000-\\u200F\\u2028-\\u202F\\u205F-\\u206F\\u3000\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8]",
                  "description": "1 to `max_message_length` (GET /v1/config; 5000 unless changed) characters, not only white space or invisible characters."
                 },
                 "channel_id": {
                  "type": [
                   "string",
                   "null"
                  ],
                  "pattern": "^[A-Za-z0-9_:.!-]{1,64}$"
                 }
                }
               }
              }
             }
            },
            "tags": [
             "rules"
            ]
           }
          },
          "/v1/config": {
           "get": {
            "summary": "Settings",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Settings"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "tags": [
             "settings"
            ]
           },
           "patch": {
            "summary": "Change settings (unknown keys are 400)",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Settings"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/Settings"
               }
              }
             }
            },
            "tags": [
             "settings"
            ]
           }
          },
          "/v1/channels/{channel_id}/messages": {
           "post": {
            "summary": "Send a message",
            "responses": {
             "201": {
              "description": "Sent (state tells what moderation did)",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Message"
                }
               }
              },
              "headers": {
               "Content-Language": {
                "schema": {
                 "type": "string"
                }
               }
              }
             },
             "200": {
              "description": "A retry of a message already stored",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Message"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "409": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             },
             "429": {
              "$ref": "#/components/responses/Problem"
             },
             "422": {
              "description": "`parent_not_found`: `parent_id` is not a message of this channel that the sender may see.",
              "content": {
               "application/problem+json": {
                "schema": {
                 "$ref": "#/components/schemas/Problem"
                }
               }
              }
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "channel_id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_:.!-]{1,64}$"
              }
             },
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             }
            ],
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/SendInput"
               }
              }
             }
            },
            "tags": [
             "messages"
            ]
           },
           "get": {
            "summary": "A channel's messages: newest page first, chronological inside a page",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "messages",
                  "next_cursor"
                 ],
                 "properties": {
                  "messages": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Message"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "channel_id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_:.!-]{1,64}$"
              }
             },
             {
              "name": "limit",
              "in": "query",
              "required": false,
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 200,
               "default": 50
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_-]{1,512}$"
              },
              "description": "Opaque: the `next_cursor` of the page before. One this service did not give out is 400 `invalid_cursor`."
             },
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             }
            ],
            "tags": [
             "messages"
            ]
           }
          },
          "/v1/messages/{id}": {
           "get": {
            "summary": "A message, as the caller may see it",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Message"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             },
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             }
            ],
            "tags": [
             "messages"
            ]
           },
           "patch": {
            "summary": "Edit (moderated again)",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Message"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "409": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             },
             "422": {
              "$ref": "#/components/responses/Problem"
             },
             "429": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             },
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             }
            ],
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "type": "object",
                "required": [
                 "text"
                ],
                "properties": {
                 "text": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 5000,
                  "pattern": "[^\\t-\\r \\u0085\\u00A0\\u00AD\\u034F\\u061C\\u115F\\u1160\\u1680\\u17B4\\u17B5\\u180B-\\u180F\\u2000-\\u200F\\u2028-\\u202F\\u205F-\\u206F\\u3000\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8]",
                  "description": "1 to `max_message_length` (GET /v1/config; 5000 unless changed) characters, not only white space or invisible characters."
                 }
                }
               }
              }
             }
            },
            "tags": [
             "messages"
            ]
           },
           "delete": {
            "summary": "Delete: erase bounced and removed messages, tombstone others",
            "responses": {
             "204": {
              "description": "Deleted"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             },
             {
              "name": "hard",
              "in": "query",
              "required": false,
              "schema": {
               "type": "boolean"
              },
              "description": "Admins: erase anything"
             }
            ],
            "tags": [
             "messages"
            ]
           }
          },
          "/v1/messages/{id}/resend": {
           "post": {
            "summary": "Send Anyway",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Message"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "409": {
              "$ref": "#/components/responses/Problem"
             },
             "429": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             },
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             }
            ],
            "tags": [
             "messages"
            ]
           }
          },
          "/v1/messages/{id}/actions": {
           "get": {
            "summary": "The actions the caller may take",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "actions",
                  "next_cursor"
                 ],
                 "properties": {
                  "actions": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Action"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             },
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             }
            ],
            "tags": [
             "messages"
            ]
           }
          },
          "/v1/messages/{id}/revisions": {
           "get": {
            "summary": "Earlier texts",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "revisions",
                  "next_cursor"
                 ],
                 "properties": {
                  "revisions": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Revision"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             },
             {
              "name": "limit",
              "in": "query",
              "required": false,
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 200,
               "default": 50
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_-]{1,512}$"
              },
              "description": "Opaque: the `next_cursor` of the page before. One this service did not give out is 400 `invalid_cursor`."
             }
            ],
            "tags": [
             "messages"
            ]
           }
          },
          "/v1/messages/{id}/flag": {
           "post": {
            "summary": "Flag a message",
            "responses": {
             "201": {
              "description": "Filed",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Flag"
                }
               }
              }
             },
             "200": {
              "description": "Already flagged by the caller",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Flag"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             }
            ],
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/FlagInput"
               }
              }
             }
            },
            "tags": [
             "flags"
            ]
           },
           "delete": {
            "summary": "Withdraw the caller's flag",
            "responses": {
             "204": {
              "description": "Withdrawn"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "user",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             }
            ],
            "tags": [
             "flags"
            ]
           }
          },
          "/v1/flags": {
           "get": {
            "summary": "Flags",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "flags",
                  "next_cursor"
                 ],
                 "properties": {
                  "flags": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Flag"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "limit",
              "in": "query",
              "required": false,
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 200,
               "default": 50
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_-]{1,512}$"
              },
              "description": "Opaque: the `next_cursor` of the page before. One this service did not give out is 400 `invalid_cursor`."
             },
             {
              "name": "state",
              "in": "query",
              "required": false,
              "schema": {
               "enum": [
                "open",
                "resolved",
                "withdrawn"
               ]
              }
             },
             {
              "name": "reason",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "maxLength": 128
              }
             },
             {
              "name": "channel_id",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "maxLength": 128
              }
             },
             {
              "name": "reporter_id",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "maxLength": 128
              }
             },
             {
              "name": "author_id",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "maxLength": 128
              }
             },
             {
              "name": "since",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "format": "date-time"
              }
             },
             {
              "name": "until",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "format": "date-time"
              }
             }
            ],
            "tags": [
             "flags"
            ]
           }
          },
          "/v1/review-queue": {
           "get": {
            "summary": "Messages with open flags",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "items",
                  "next_cursor"
                 ],
                 "properties": {
                  "items": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/ReviewItem"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "limit",
              "in": "query",
              "required": false,
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 200,
               "default": 50
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_-]{1,512}$"
              },
              "description": "Opaque: the `next_cursor` of the page before. One this service did not give out is 400 `invalid_cursor`."
             },
             {
              "name": "locale",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string"
              },
              "description": "The language of texts; else Accept-Language, else the default locale."
             },
             {
              "name": "state",
              "in": "query",
              "required": false,
              "schema": {
               "const": "open"
              }
             },
             {
              "name": "channel_id",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "maxLength": 128
              }
             },
             {
              "name": "sort",
              "in": "query",
              "required": false,
              "schema": {
               "enum": [
                "flag_count",
                "oldest"
               ]
              }
             }
            ],
            "tags": [
             "flags"
            ]
           }
          },
          "/v1/messages/{id}/review": {
           "post": {
            "summary": "Decide: resolves every open flag of the message",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/ReviewResult"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              },
              "description": "A message id: 1-100 of [A-Za-z0-9_-], or a server id."
             }
            ],
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/ReviewInput"
               }
              }
             }
            },
            "tags": [
             "flags"
            ]
           }
          },
          "/v1/users/{user_id}/ban": {
           "post": {
            "summary": "Ban a user",
            "responses": {
             "201": {
              "description": "Banned",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Ban"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "415": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "user_id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_.@:|-]{1,128}$"
              }
             }
            ],
            "requestBody": {
             "required": false,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/BanInput"
               }
              }
             }
            },
            "tags": [
             "bans"
            ]
           },
           "delete": {
            "summary": "Lift a ban",
            "responses": {
             "204": {
              "description": "Lifted"
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             },
             "404": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "user_id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_.@:|-]{1,128}$"
              }
             }
            ],
            "tags": [
             "bans"
            ]
           }
          },
          "/v1/bans": {
           "get": {
            "summary": "Bans in force",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "bans",
                  "next_cursor"
                 ],
                 "properties": {
                  "bans": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Ban"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "limit",
              "in": "query",
              "required": false,
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 200,
               "default": 50
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_-]{1,512}$"
              },
              "description": "Opaque: the `next_cursor` of the page before. One this service did not give out is 400 `invalid_cursor`."
             }
            ],
            "tags": [
             "bans"
            ]
           }
          },
          "/v1/audit": {
           "get": {
            "summary": "The audit log",
            "responses": {
             "200": {
              "description": "OK",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "entries",
                  "next_cursor"
                 ],
                 "properties": {
                  "entries": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/AuditEntry"
                   }
                  },
                  "next_cursor": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/Problem"
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "moderator",
            "parameters": [
             {
              "name": "limit",
              "in": "query",
              "required": false,
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 200,
               "default": 50
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_-]{1,512}$"
              },
              "description": "Opaque: the `next_cursor` of the page before. One this service did not give out is 400 `invalid_cursor`."
             },
             {
              "name": "actor_id",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "maxLength": 128
              }
             },
             {
              "name": "action",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "maxLength": 128
              }
             },
             {
              "name": "since",
              "in": "query",
              "required": false,
              "schema": {
               "type": "string",
               "format": "date-time"
              }
             }
            ],
            "tags": [
             "audit"
            ]
           }
          },
          "/v1/admin/backup": {
           "post": {
            "summary": "A consistent copy of the store into <data-dir>/backups/",
            "responses": {
             "201": {
              "description": "Written",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "properties": {
                  "path": {
                   "type": "string"
                  },
                  "bytes": {
                   "type": "integer"
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Problem"
             },
             "403": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "x-bouncer-role": "admin",
            "tags": [
             "operations"
            ]
           }
          }
         },
         "components": {
          "securitySchemes": {
           "bearer": {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT (HS256; claims user_id or sub, role, exp, nbf)"
           }
          },
          "responses": {
           "Problem": {
            "description": "RFC 9457 problem",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           }
          },
          "schemas": {
           "Problem": {
            "type": "object",
            "required": [
             "type",
             "title",
             "status",
             "detail",
             "code",
             "request_id"
            ],
            "properties": {
             "type": {
              "type": "string"
             },
             "title": {
              "type": "string"
             },
             "status": {
              "type": "integer"
             },
             "detail": {
              "type": "string"
             },
             "code": {
              "type": "string"
             },
             "request_id": {
              "type": "string"
             }
            }
           },
           "Me": {
            "type": "object",
            "properties": {
             "user_id": {
              "type": "string"
             },
             "role": {
              "enum": [
               "user",
               "moderator",
               "admin"
              ]
             }
            }
           },
           "Strings": {
            "type": "object",
            "properties": {
             "locale": {
              "type": "string"
             },
             "strings": {
              "type": "object",
              "additionalProperties": {
               "type": "string"
              }
             }
            }
           },
           "LocaleStrings": {
            "type": "object",
            "properties": {
             "locale": {
              "type": "string"
             },
             "strings": {
              "type": "object",
              "additionalProperties": {
               "type": "string"
              }
             },
             "overridden": {
              "type": "array",
              "items": {
               "type": "string"
              }
             },
             "ignored": {
              "type": "array",
              "items": {
               "type": "string"
              },
              "description": "After a text/plain PUT only: the file's keys Bouncer does not use, left out (an app's whole Localizable.strings can be sent as it is)."
             }
            }
           },
           "StringsUpdate": {
            "type": "object",
            "required": [
             "strings"
            ],
            "properties": {
             "strings": {
              "type": "object",
              "minProperties": 1,
              "maxProperties": 1000,
              "propertyNames": {
               "enum": [
                "error.400.title",
                "error.401.title",
                "error.403.title",
                "error.404.title",
                "error.405.title",
                "error.408.title",
                "error.409.title",
                "error.413.title",
                "error.414.title",
                "error.415.title",
                "error.417.title",
                "error.422.title",
                "error.429.title",
                "error.431.title",
                "error.500.title",
                "error.501.title",
                "error.503.title",
                "error.505.title",
                "error.body_too_large.detail",
                "error.forbidden.detail",
                "error.internal_error.detail",
                "error.invalid_json.detail",
                "error.invalid_token.detail",
                "error.json_too_deep.detail",
                "error.locale_not_found.detail",
                "error.method_not_allowed.detail",
                "error.not_found.detail",
                "error.not_ready.detail",
                "error.rate_limited.detail",
                "error.request_timeout.detail",
                "error.unauthenticated.detail",
                "error.unsupported_media_type.detail",
                "message.actions.delete",
                "message.actions.delete.confirmation-button",
                "message.actions.delete.confirmation-message",
                "message.actions.delete.confirmation-title",
                "message.actions.edit",
                "message.actions.flag",
                "message.actions.flag.confirmation-button",
                "message.actions.flag.confirmation-message",
                "message.actions.flag.confirmation-title",
                "message.actions.resend",
                "message.bounce.title",
                "message.deleted.text",
                "message.moderation.alert.delete",
                "message.moderation.alert.edit",
                "message.moderation.alert.message",
                "message.moderation.alert.resend",
                "message.moderation.alert.title"
               ]
              },
              "additionalProperties": {
               "type": "string",
               "maxLength": 2000
              },
              "description": "Keys of the bundled English texts. Each text keeps the English text's format placeholders (`%@`, `%d`, `%1$@`); one that does not is 400 `invalid_override`."
             }
            }
           },
           "Locales": {
            "type": "object",
            "properties": {
             "locales": {
              "type": "array",
              "items": {
               "type": "object",
               "properties": {
                "locale": {
                 "type": "string"
                },
                "bundled": {
                 "type": "boolean"
                },
                "overridden": {
                 "type": "boolean"
                }
               }
              }
             },
             "default_locale": {
              "type": "string"
             },
             "next_cursor": {
              "type": [
               "string",
               "null"
              ]
             }
            }
           },
           "RuleKind": {
            "enum": [
             "word",
             "phrase",
             "regex",
             "domain",
             "email",
             "allow"
            ]
           },
           "RuleAction": {
            "enum": [
             "remove",
             "shadow",
             "bounce_remove",
             "bounce_flag",
             "bounce",
             "mask_flag",
             "flag"
            ]
           },
           "Rule": {
            "type": "object",
            "properties": {
             "id": {
              "type": "string"
             },
             "name": {
              "type": "string"
             },
             "kind": {
              "$ref": "#/components/schemas/RuleKind"
             },
             "pattern": {
              "type": "string"
             },
             "action": {
              "oneOf": [
               {
                "$ref": "#/components/schemas/RuleAction"
               },
               {
                "type": "null"
               }
              ]
             },
             "channels": {
              "type": "array",
              "items": {
               "type": "string"
              }
             },
             "enabled": {
              "type": "boolean"
             },
             "priority": {
              "type": "integer"
             },
             "inflections": {
              "type": [
               "boolean",
               "null"
              ],
              "description": "Whether a `word` rule also matches the word's inflections (-s, -es, -ing, -ed, -er); null follows `rule_inflections` of GET /v1/config."
             },
             "created_at": {
              "type": "string",
              "format": "date-time"
             },
             "updated_at": {
              "type": "string",
              "format": "date-time"
             },
             "created_by": {
              "type": "string"
             }
            }
           },
           "RuleInput": {
            "type": "object",
            "properties": {
             "name": {
              "type": [
               "string",
               "null"
              ],
              "maxLength": 200
             },
             "kind": {
              "anyOf": [
               {
                "$ref": "#/components/schemas/RuleKind"
               },
               {
                "type": "null"
               }
              ]
             },
             "pattern": {
              "type": [
               "string",
               "null"
              ],
              "minLength": 1,
              "maxLength": 512,
              "description": "A word or phrase (word), or a regular expression (regex). One that cannot be compiled is 422 `invalid_pattern`."
             },
             "action": {
              "anyOf": [
               {
                "$ref": "#/components/schemas/RuleAction"
               },
               {
                "type": "null"
               }
              ]
             },
             "channels": {
              "type": [
               "array",
               "null"
              ],
              "items": {
               "type": "string",
               "pattern": "^[A-Za-z0-9_:.!*-]{1,64}$"
              },
              "minItems": 1,
              "maxItems": 100,
              "description": "Channel ids, `*` as a wildcard (`messaging:*`); all channels unless given."
             },
             "enabled": {
              "type": [
               "boolean",
               "null"
              ]
             },
             "priority": {
              "type": [
               "integer",
               "null"
              ],
              "minimum": -1000000,
              "maximum": 1000000
             },
             "inflections": {
              "type": [
               "boolean",
               "null"
              ],
              "description": "Whether a `word` rule also matches the word's inflections. Absent: unchanged (for a new rule, null); null: follow `rule_inflections` of GET /v1/config."
             }
            }
           },
           "Span": {
            "type": "object",
            "properties": {
             "text": {
              "type": "string"
             },
             "start": {
              "type": "integer"
             },
             "end": {
              "type": "integer"
             },
             "utf16_start": {
              "type": "integer"
             },
             "utf16_end": {
              "type": "integer"
             }
            }
           },
           "VerdictRule": {
            "type": "object",
            "properties": {
             "id": {
              "type": "string"
             },
             "name": {
              "type": "string"
             },
             "kind": {
              "$ref": "#/components/schemas/RuleKind"
             },
             "action": {
              "oneOf": [
               {
                "$ref": "#/components/schemas/RuleAction"
               },
               {
                "type": "null"
               }
              ]
             },
             "matched": {
              "type": "array",
              "maxItems": 100,
              "description": "Where the rule matched, in order: the first 100 spans (every span counts for the verdict and for masking).",
              "items": {
               "$ref": "#/components/schemas/Span"
              }
             }
            }
           },
           "Verdict": {
            "type": "object",
            "properties": {
             "action": {
              "type": "string"
             },
             "rules": {
              "type": "array",
              "items": {
               "$ref": "#/components/schemas/VerdictRule"
              }
             },
             "masked_text": {
              "type": "string"
             }
            }
           },
           "Settings": {
            "type": "object",
            "properties": {
             "bounced_messages_alert_actions_enabled": {
              "type": "boolean"
             },
             "flag_action_enabled": {
              "type": "boolean"
             },
             "flag_reasons": {
              "type": "array",
              "items": {
               "type": "string",
               "pattern": "^[a-z0-9_]{1,32}$"
              },
              "minItems": 1,
              "maxItems": 50,
              "uniqueItems": true
             },
             "auto_hide_flag_threshold": {
              "type": "integer",
              "minimum": 0,
              "maximum": 10000
             },
             "max_message_length": {
              "type": "integer",
              "minimum": 1,
              "maximum": 20000
             },
             "default_locale": {
              "type": "string",
              "description": "A locale Bouncer has texts for (GET /v1/localization/locales); others are 400."
             },
             "send_rate_per_user": {
              "type": "number",
              "minimum": 0,
              "maximum": 100000,
              "description": "Messages a second per user; 0 turns the limit off."
             },
             "rule_inflections": {
              "type": "boolean",
              "description": "Whether `word` rules whose `inflections` is null also match the word's inflections (fucks, fucking, fucked, fucker; -es after s, x, z, ch, sh). Default true."
             }
            }
           },
           "SendInput": {
            "type": "object",
            "required": [
             "text"
            ],
            "properties": {
             "id": {
              "type": [
               "string",
               "null"
              ],
              "pattern": "^[A-Za-z0-9_-]{1,100}$"
             },
             "text": {
              "type": "string",
              "minLength": 1,
              "maxLength": 5000,
              "pattern": "[^\\t-\\r \\u0085\\u00A0\\u00AD\\u034F\\u061C\\u115F\\u1160\\u1680\\u17B4\\u17B5\\u180B-\\u180F\\u2000-\\u200F\\u2028-\\u202F\\u205F-\\u206F\\u3000\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8]",
              "description": "1 to `max_message_length` (GET /v1/config; 5000 unless changed) characters, not only white space or invisible characters."
             },
             "parent_id": {
              "type": [
               "string",
               "null"
              ],
              "pattern": "^[A-Za-z0-9_-]{1,100}$"
             },
             "custom": {
              "type": [
               "object",
               "null"
              ]
             }
            }
           },
           "Alert": {
            "type": "object",
            "properties": {
             "title": {
              "type": "string"
             },
             "message": {
              "type": "string"
             },
             "actions": {
              "type": "array",
              "items": {
               "type": "object",
               "properties": {
                "id": {
                 "enum": [
                  "resend",
                  "edit",
                  "delete"
                 ]
                },
                "title": {
                 "type": "string"
                }
               }
              }
             }
            }
           },
           "Message": {
            "type": "object",
            "required": [
             "id",
             "channel_id",
             "user_id",
             "text",
             "type",
             "state",
             "created_at",
             "updated_at",
             "edited"
            ],
            "properties": {
             "id": {
              "type": "string"
             },
             "channel_id": {
              "type": "string"
             },
             "user_id": {
              "type": "string"
             },
             "text": {
              "type": "string"
             },
             "type": {
              "enum": [
               "regular",
               "error",
               "deleted"
              ]
             },
             "state": {
              "enum": [
               "delivered",
               "bounced",
               "shadowed",
               "removed",
               "deleted"
              ]
             },
             "created_at": {
              "type": "string",
              "format": "date-time"
             },
             "updated_at": {
              "type": "string",
              "format": "date-time"
             },
             "edited": {
              "type": "boolean"
             },
             "parent_id": {
              "type": "string"
             },
             "custom": {
              "type": "object"
             },
             "moderation": {
              "type": "object",
              "properties": {
               "action": {
                "type": "string"
               },
               "rules": {
                "type": "array",
                "items": {
                 "$ref": "#/components/schemas/VerdictRule"
                }
               },
               "original_text": {
                "type": "string"
               },
               "flagged": {
                "type": "boolean"
               }
              }
             },
             "notice": {
              "type": "string"
             },
             "alert": {
              "$ref": "#/components/schemas/Alert"
             }
            }
           },
           "Action": {
            "type": "object",
            "properties": {
             "id": {
              "type": "string"
             },
             "title": {
              "type": "string"
             },
             "destructive": {
              "type": "boolean"
             },
             "confirmation": {
              "type": "object",
              "properties": {
               "title": {
                "type": "string"
               },
               "message": {
                "type": "string"
               },
               "button": {
                "type": "string"
               }
              }
             }
            }
           },
           "Revision": {
            "type": "object",
            "properties": {
             "revision": {
              "type": "integer"
             },
             "text": {
              "type": "string"
             },
             "state": {
              "type": "string"
             },
             "created_at": {
              "type": "string",
              "format": "date-time"
             }
            }
           },
           "FlagInput": {
            "type": "object",
            "required": [
             "reason"
            ],
            "properties": {
             "reason": {
              "type": "string",
              "enum": [
               "spam",
               "harassment",
               "hate",
               "sexual",
               "violence",
               "self_harm",
               "misinformation",
               "inappropriate",
               "other"
              ],
              "description": "One of the configured `flag_reasons` (GET /v1/config); the enum lists the defaults."
             },
             "details": {
              "type": [
               "string",
               "null"
              ],
              "maxLength": 1000
             },
             "custom": {
              "type": [
               "object",
               "null"
              ],
              "description": "At most 5120 bytes as JSON."
             }
            }
           },
           "Flag": {
            "type": "object",
            "properties": {
             "id": {
              "type": "string"
             },
             "message_id": {
              "type": "string"
             },
             "channel_id": {
              "type": "string"
             },
             "reporter_id": {
              "type": "string"
             },
             "reason": {
              "type": "string"
             },
             "details": {
              "type": [
               "string",
               "null"
              ]
             },
             "rule_id": {
              "type": [
               "string",
               "null"
              ]
             },
             "state": {
              "enum": [
               "open",
               "resolved",
               "withdrawn"
              ]
             },
             "resolution": {
              "type": [
               "string",
               "null"
              ]
             },
             "resolved_by": {
              "type": [
               "string",
               "null"
              ]
             },
             "resolved_at": {
              "type": [
               "string",
               "null"
              ]
             },
             "created_at": {
              "type": "string",
              "format": "date-time"
             },
             "custom": {
              "type": [
               "object",
               "null"
              ]
             }
            }
           },
           "ReviewItem": {
            "type": "object",
            "properties": {
             "message": {
              "$ref": "#/components/schemas/Message"
             },
             "flags": {
              "type": "array",
              "items": {
               "$ref": "#/components/schemas/Flag"
              }
             },
             "flag_count": {
              "type": "integer"
             },
             "counts_by_reason": {
              "type": "object",
              "additionalProperties": {
               "type": "integer"
              }
             },
             "first_flag_at": {
              "type": "string"
             },
             "last_flag_at": {
              "type": "string"
             }
            }
           },
           "ReviewInput": {
            "type": "object",
            "required": [
             "decision"
            ],
            "properties": {
             "decision": {
              "enum": [
               "dismiss",
               "remove_message",
               "ban_author"
              ]
             },
             "note": {
              "type": [
               "string",
               "null"
              ],
              "maxLength": 1000
             },
             "ban_duration_seconds": {
              "type": [
               "integer",
               "null"
              ],
              "minimum": 1,
              "maximum": 316224000
             }
            }
           },
           "ReviewResult": {
            "type": "object",
            "properties": {
             "decision": {
              "type": "string"
             },
             "resolved": {
              "type": "integer"
             },
             "message": {
              "$ref": "#/components/schemas/Message"
             }
            }
           },
           "BanInput": {
            "type": "object",
            "properties": {
             "reason": {
              "type": [
               "string",
               "null"
              ],
              "maxLength": 500
             },
             "duration_seconds": {
              "type": [
               "integer",
               "null"
              ],
              "minimum": 1,
              "maximum": 316224000
             },
             "shadow": {
              "type": [
               "boolean",
               "null"
              ]
             }
            }
           },
           "Ban": {
            "type": "object",
            "properties": {
             "user_id": {
              "type": "string"
             },
             "reason": {
              "type": [
               "string",
               "null"
              ]
             },
             "shadow": {
              "type": "boolean"
             },
             "expires_at": {
              "type": [
               "string",
               "null"
              ]
             },
             "created_by": {
              "type": "string"
             },
             "created_at": {
              "type": "string"
             }
            }
           },
           "AuditEntry": {
            "type": "object",
            "properties": {
             "id": {
              "type": "string"
             },
             "actor_id": {
              "type": "string"
             },
             "action": {
              "type": "string"
             },
             "target_type": {
              "type": "string"
             },
             "target_id": {
              "type": "string"
             },
             "note": {
              "type": [
               "string",
               "null"
              ]
             },
             "details": {
              "type": [
               "object",
               "null"
              ]
             },
             "created_at": {
              "type": "string"
             }
            }
           },
           "RuleCreate": {
            "allOf": [
             {
              "$ref": "#/components/schemas/RuleInput"
             }
            ],
            "required": [
             "kind",
             "pattern"
            ],
            "properties": {
             "kind": {
              "$ref": "#/components/schemas/RuleKind"
             },
             "pattern": {
              "type": "string",
              "minLength": 1,
              "maxLength": 512
             }
            },
            "if": {
             "properties": {
              "kind": {
               "const": "allow"
              }
             }
            },
            "then": {
             "properties": {
              "action": {
               "type": "null"
              }
             }
            },
            "else": {
             "required": [
              "action"
             ],
             "properties": {
              "action": {
               "$ref": "#/components/schemas/RuleAction"
              }
             }
            },
            "description": "A new rule: `allow` rules take no `action`, every other kind needs one."
           }
          }
         }
        }
        """#
}
