/* warpred/version.h - the version of warpred's headers.      MIT licensed, see LICENSE.

   WARPRED_VERSION_MAJOR, _MINOR, _PATCH and WARPRED_VERSION (MAJOR * 10000 + MINOR * 100 +
   PATCH). Every warpred header includes this one; headers of two versions in one translation
   unit stop with an #error. Plain C: host .c/.cpp files compile it too.
*/
#ifndef WARPRED_VERSION
#    define WARPRED_VERSION_MAJOR 0
#    define WARPRED_VERSION_MINOR 3
#    define WARPRED_VERSION_PATCH 0
#    define WARPRED_VERSION 300
#elif WARPRED_VERSION != 300
#    error "warpred: headers of different versions are mixed (this is warpred/version.h 0.3.0)"
#endif
