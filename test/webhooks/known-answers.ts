/** Signatures computed independently with `printf '%s' BODY | openssl dgst -sha256 -hmac SECRET`. */
export const SECRET = "whsec_test_secret";
export const BODY =
  '{"id":"evt_01JD8Z2C4D6E8F0G2H4J6K8M0N","type":"company.kyc_status_changed","payload":{"companyId":"01JD8X2K7P3M9Q4R6S8T0V2W4X","kycStatus":"approved"},"createdAt":"2026-11-21T09:12:44Z"}';
export const BODY_DIGEST = "699a3fd456eff9424ec2f6197d1ca354e2cd7d8fd9bdc22a0937db2ef6b0f264";
