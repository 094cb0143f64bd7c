// The page's way into the app (bridge.cpp: the entry points of js_api.h).
#pragma once

namespace fastslow::explorer {

class App;
// The app the entry points call; before it, they answer {"error"} or nothing.
void attach_bridge(App& app);

}  // namespace fastslow::explorer
