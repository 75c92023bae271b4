/* libtouch-router-sway-present-fix.so has no interface of its own: it replaces wlroots'
 * wlr_presentation_surface_sampled_on_output in sway's process (sway-present-fix.c). */
#pragma once
