package io.kelp.codec.message;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.codec.wire.RequestHeader;

/**
 * A request frame after parsing: its header, its API, and either its body or why there is none.
 *
 * @param header the header; its fields are valid unless status is {@link Status#MALFORMED_HEADER}
 * @param api the API, or null when the key is unknown or the header is malformed
 * @param body the decoded body when status is {@link Status#OK}, else null
 * @param error what was wrong, for the log line; null when status is OK
 */
public record ParsedRequest(
    Status status, RequestHeader header, ApiMessageType api, ApiMessage body, String error) {

  public enum Status {
    /** Header and body decoded. */
    OK,
    /** Too short or malformed to know who sent it: the connection should be closed. */
    MALFORMED_HEADER,
    /** The API key is not one this codec knows. */
    UNKNOWN_API_KEY,
    /** The key is known but not at this version; the body was not read. */
    UNSUPPORTED_VERSION,
    /** The header is fine but the body is not: answer with an error or close. */
    MALFORMED_BODY
  }
}
