import JSON

/// The discovery document of Perspective's API (`commentanalyzer`, v1alpha1) as Bouncer serves
/// it, pointing at Bouncer's own address: what Google's API client libraries read to build a
/// client (`discovery.build("commentanalyzer", "v1alpha1", discoveryServiceUrl=...)`).
enum PerspectiveDiscovery {
    static func document(rootURL: String) -> [UInt8] {
        var text = template
        text = text.replacingOccurrences(of: "__ROOT__", with: String(JSONText.quoted(rootURL).dropFirst().dropLast()))
        return Array(text.utf8)
    }

    private static let template = #"""
    {
      "kind": "discovery#restDescription",
      "discoveryVersion": "v1",
      "id": "commentanalyzer:v1alpha1",
      "name": "commentanalyzer",
      "version": "v1alpha1",
      "title": "Perspective Comment Analyzer API, served by Bouncer",
      "description": "Scores a comment's text for the attributes of the harm-score model in force (TOXICITY is its toxicity). Nothing is stored.",
      "protocol": "rest",
      "rootUrl": "__ROOT__",
      "servicePath": "",
      "baseUrl": "__ROOT__",
      "batchPath": "batch",
      "ownerDomain": "bouncer",
      "ownerName": "Bouncer",
      "parameters": {
        "key": {"type": "string", "location": "query", "description": "A Bouncer token of a moderator or an admin (or send it as a bearer token)."},
        "access_token": {"type": "string", "location": "query", "description": "OAuth access token; Bouncer takes `key` or a bearer header."},
        "alt": {"type": "string", "location": "query", "default": "json", "enum": ["json"], "enumDescriptions": ["Responses with Content-Type of application/json"]},
        "fields": {"type": "string", "location": "query", "description": "Ignored: the whole response is sent."},
        "prettyPrint": {"type": "boolean", "location": "query", "default": "true"},
        "quotaUser": {"type": "string", "location": "query"},
        "$.xgafv": {"type": "string", "location": "query", "enum": ["1", "2"], "enumDescriptions": ["v1 error format", "v2 error format"]}
      },
      "resources": {
        "comments": {
          "methods": {
            "analyze": {
              "id": "commentanalyzer.comments.analyze",
              "path": "v1alpha1/comments:analyze",
              "flatPath": "v1alpha1/comments:analyze",
              "httpMethod": "POST",
              "description": "Analyzes the provided text and returns scores for the requested attributes.",
              "parameters": {},
              "parameterOrder": [],
              "request": {"$ref": "AnalyzeCommentRequest"},
              "response": {"$ref": "AnalyzeCommentResponse"}
            }
          }
        }
      },
      "schemas": {
        "AnalyzeCommentRequest": {
          "id": "AnalyzeCommentRequest",
          "type": "object",
          "properties": {
            "comment": {"$ref": "TextEntry"},
            "requestedAttributes": {"type": "object", "additionalProperties": {"$ref": "AttributeParameters"}},
            "languages": {"type": "array", "items": {"type": "string"}},
            "doNotStore": {"type": "boolean"},
            "clientToken": {"type": "string"},
            "sessionId": {"type": "string"},
            "spanAnnotations": {"type": "boolean"},
            "communityId": {"type": "string"},
            "context": {"$ref": "Context"}
          }
        },
        "TextEntry": {
          "id": "TextEntry",
          "type": "object",
          "properties": {"text": {"type": "string"}, "type": {"type": "string", "enum": ["TEXT_TYPE_UNSPECIFIED", "PLAIN_TEXT", "HTML"]}}
        },
        "AttributeParameters": {
          "id": "AttributeParameters",
          "type": "object",
          "properties": {
            "scoreType": {"type": "string", "enum": ["SCORE_TYPE_UNSPECIFIED", "PROBABILITY", "STD_DEV_SCORE", "PERCENTILE", "RAW"]},
            "scoreThreshold": {"type": "number", "format": "float"}
          }
        },
        "Context": {
          "id": "Context",
          "type": "object",
          "properties": {"entries": {"type": "array", "items": {"$ref": "TextEntry"}}}
        },
        "AnalyzeCommentResponse": {
          "id": "AnalyzeCommentResponse",
          "type": "object",
          "properties": {
            "attributeScores": {"type": "object", "additionalProperties": {"$ref": "AttributeScores"}},
            "languages": {"type": "array", "items": {"type": "string"}},
            "detectedLanguages": {"type": "array", "items": {"type": "string"}},
            "clientToken": {"type": "string"}
          }
        },
        "AttributeScores": {
          "id": "AttributeScores",
          "type": "object",
          "properties": {"summaryScore": {"$ref": "Score"}, "spanScores": {"type": "array", "items": {"$ref": "SpanScore"}}}
        },
        "SpanScore": {
          "id": "SpanScore",
          "type": "object",
          "properties": {"begin": {"type": "integer", "format": "int32"}, "end": {"type": "integer", "format": "int32"}, "score": {"$ref": "Score"}}
        },
        "Score": {
          "id": "Score",
          "type": "object",
          "properties": {"value": {"type": "number", "format": "float"}, "type": {"type": "string", "enum": ["SCORE_TYPE_UNSPECIFIED", "PROBABILITY", "STD_DEV_SCORE", "PERCENTILE", "RAW"]}}
        }
      }
    }
    """#
}
