/**
 * Where device sign-in (RFC 8628) lives. The engine serves both under the mount path '' (the origin), so the URLs
 * it builds are the public ones: the device authorization endpoint beside the other shared endpoints, and the page
 * a person opens — `verification_uri`, and the resume after the sign-in pages, `/device/{uid}`.
 */

/** The shared device authorization endpoint (RFC 8628 §3.1), routed by the calling client like the token endpoint. */
export const DEVICE_AUTHORIZATION_PATH = '/application/o/device/';

/** The page where a person types the code (§3.3); every application's codes are typed here. */
export const DEVICE_PAGE_PATH = '/device/';
