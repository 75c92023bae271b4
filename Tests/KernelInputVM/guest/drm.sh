ls -la /dev/dri
cat /sys/class/drm/*/status
ask_host screendump probe
verdict 0
