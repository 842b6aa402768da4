#pragma once
// The chart runtimes report.html embeds (see BUILD for versions and origin).
namespace nsim {

extern const char kVegaJs[];
extern const char kVegaLiteJs[];
extern const char kVegaEmbedJs[];

}  // namespace nsim
