// The Material Web corpus bundle's entry (pages/apps/corpus-material.html): @material/web (pinned in
// ../package.json) imports lit, @lit/context and tslib by bare name, so the browser cannot load its
// modules as they are; runtime/build.mjs bundles this entry with esbuild into corpora/dist/material.js
// (not committed), and the server rebuilds it whenever this file, the build script or the lock file
// is newer (harness/src/server/runtime_bundle.rs), as it does the runtime.
import '@material/web/button/filled-button.js';
import '@material/web/button/outlined-button.js';
import '@material/web/button/text-button.js';
import '@material/web/iconbutton/icon-button.js';
import '@material/web/icon/icon.js';
import '@material/web/tabs/tabs.js';
import '@material/web/tabs/primary-tab.js';
import '@material/web/checkbox/checkbox.js';
import '@material/web/radio/radio.js';
import '@material/web/switch/switch.js';
import '@material/web/chips/chip-set.js';
import '@material/web/chips/filter-chip.js';
import '@material/web/chips/assist-chip.js';
import '@material/web/list/list.js';
import '@material/web/list/list-item.js';
import '@material/web/textfield/outlined-text-field.js';
import '@material/web/select/outlined-select.js';
import '@material/web/select/select-option.js';
