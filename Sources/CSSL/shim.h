// libssl, for the tests alone: the https face the end-to-end tests put before a loopback
// server (TLSFront), to ask keep over TLS with certificates a test made. Nothing keep ships
// links it.
#include <openssl/ssl.h>
#include <openssl/err.h>
