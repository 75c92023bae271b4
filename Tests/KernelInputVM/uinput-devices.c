// Kernel input devices for the VM test: a multitouch touchscreen and a keyboard made with
// uinput, each recorded in a udev database entry of our own (the VM runs no udevd, and
// libinput takes only devices udev has seen). It prints both /dev/input nodes, touchscreen
// first, then acts on each line of standard input: "tap X Y SLOT" in the touchscreen's
// units (0 to 4095 on both axes), or "key CODE", an evdev key pressed and released.
// For hotplug (guest/hotplug.sh): "add-touchscreen" makes a second touchscreen, "TouchRouter
// hotplug touchscreen", prints its node, and the touch commands go to it from then on;
// "down X Y SLOT" and "up SLOT" are the halves of a tap, "motion X Y SLOT" moves a touch that is down; "remove-touchscreen" destroys it
// (a touch may still be down); "leds" prints the keyboard's LED changes, "led CODE VALUE"
// (LED_CAPSL is 1). "add-mouse" makes a mouse, "TouchRouter test mouse", and prints its node;
// "move DX DY" moves it (relative units, one report). "stroke X Y N INTERVAL_US FILE" (the
// present scenario): a touch down at (X, Y), N motions of 4 units right each INTERVAL_US
// apart, and its up, each report's CLOCK_MONOTONIC time before it was written appended to
// FILE as "down|motion|up NS"; it prints "stroked N". Arguments: --udevd leaves the udev database to a running
// udevd; --keyboard-only makes only the keyboard at the start.
#include <dirent.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static void send_event(int fd, int type, int code, int value) {
    struct input_event event;
    memset(&event, 0, sizeof event);
    event.type = type;
    event.code = code;
    event.value = value;
    if (write(fd, &event, sizeof event) != sizeof event) fail("write to uinput");
}

static void report(int fd) {
    send_event(fd, EV_SYN, SYN_REPORT, 0);
    usleep(30000);
}

static void axis(int fd, int code, int maximum) {
    struct uinput_abs_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.code = code;
    setup.absinfo.maximum = maximum;
    setup.absinfo.resolution = code == ABS_MT_SLOT || code == ABS_MT_TRACKING_ID ? 0 : 16;
    if (ioctl(fd, UI_ABS_SETUP, &setup) < 0) fail("UI_ABS_SETUP");
}

// The event node the kernel made for uinput device `sysname`, waited for.
static void event_node(const char *sysname, char *node, size_t size, char *devno, size_t devno_size) {
    char directory[256];
    snprintf(directory, sizeof directory, "/sys/devices/virtual/input/%s", sysname);
    node[0] = 0;
    for (int tries = 0; tries < 300 && !node[0]; tries++) {
        DIR *listing = opendir(directory);
        struct dirent *entry;
        while (listing && (entry = readdir(listing)))
            if (strncmp(entry->d_name, "event", 5) == 0) snprintf(node, size, "%s", entry->d_name);
        if (listing) closedir(listing);
        if (!node[0]) usleep(10000);
    }
    if (!node[0]) fail("no event node appeared");
    char path[512];
    snprintf(path, sizeof path, "%s/%s/dev", directory, node);
    FILE *file = fopen(path, "r");
    if (!file || !fgets(devno, (int)devno_size, file)) fail(path);
    fclose(file);
    devno[strcspn(devno, "\n")] = 0;
    char name[64];
    snprintf(name, sizeof name, "%s", node);
    snprintf(node, size, "/dev/input/%s", name);
    for (int tries = 0; tries < 300 && access(node, R_OK) != 0; tries++) usleep(10000);
}

static int udevd_runs;

// Creates the device set up on `fd`, records it for libinput, and prints its node.
static void create(int fd, const char *name, int product, const char *properties) {
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x7472;
    setup.id.product = product;
    snprintf(setup.name, sizeof setup.name, "%s", name);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) fail("UI_DEV_CREATE");
    char sysname[64] = "", node[300], devno[32];
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sysname), sysname) < 0) fail("UI_GET_SYSNAME");
    event_node(sysname, node, sizeof node, devno, sizeof devno);
    if (udevd_runs) {
        printf("%s\n", node);
        return;
    }
    // What udevd would have written: the file's presence says "initialized".
    mkdir("/run/udev", 0755);
    mkdir("/run/udev/data", 0755);
    char entry[128];
    snprintf(entry, sizeof entry, "/run/udev/data/c%s", devno);
    FILE *database = fopen(entry, "w");
    if (!database) fail(entry);
    fprintf(database, "I:1\nE:ID_INPUT=1\n%sG:seat\nQ:seat\nV:1\n", properties);
    fclose(database);
    printf("%s\n", node);
}

static int make_touchscreen(const char *name, int product) {
    int touchscreen = open("/dev/uinput", O_WRONLY);
    if (touchscreen < 0) fail("/dev/uinput");
    if (ioctl(touchscreen, UI_SET_EVBIT, EV_KEY) < 0 || ioctl(touchscreen, UI_SET_KEYBIT, BTN_TOUCH) < 0) fail("UI_SET_KEYBIT");
    if (ioctl(touchscreen, UI_SET_EVBIT, EV_ABS) < 0) fail("UI_SET_EVBIT");
    axis(touchscreen, ABS_X, 4095);
    axis(touchscreen, ABS_Y, 4095);
    axis(touchscreen, ABS_MT_SLOT, 9);
    axis(touchscreen, ABS_MT_TRACKING_ID, 65535);
    axis(touchscreen, ABS_MT_POSITION_X, 4095);
    axis(touchscreen, ABS_MT_POSITION_Y, 4095);
    if (ioctl(touchscreen, UI_SET_PROPBIT, INPUT_PROP_DIRECT) < 0) fail("UI_SET_PROPBIT");
    create(touchscreen, name, product, "E:ID_INPUT_TOUCHSCREEN=1\n");
    return touchscreen;
}

static void touch_down(int touchscreen, int x, int y, int slot, int tracking) {
    send_event(touchscreen, EV_ABS, ABS_MT_SLOT, slot);
    send_event(touchscreen, EV_ABS, ABS_MT_TRACKING_ID, tracking);
    send_event(touchscreen, EV_ABS, ABS_MT_POSITION_X, x);
    send_event(touchscreen, EV_ABS, ABS_MT_POSITION_Y, y);
    send_event(touchscreen, EV_KEY, BTN_TOUCH, 1);
    send_event(touchscreen, EV_ABS, ABS_X, x);
    send_event(touchscreen, EV_ABS, ABS_Y, y);
    report(touchscreen);
}

static void touch_motion(int touchscreen, int x, int y, int slot) {
    send_event(touchscreen, EV_ABS, ABS_MT_SLOT, slot);
    send_event(touchscreen, EV_ABS, ABS_MT_POSITION_X, x);
    send_event(touchscreen, EV_ABS, ABS_MT_POSITION_Y, y);
    report(touchscreen);
}

static void touch_up(int touchscreen, int slot) {
    send_event(touchscreen, EV_ABS, ABS_MT_SLOT, slot);
    send_event(touchscreen, EV_ABS, ABS_MT_TRACKING_ID, -1);
    send_event(touchscreen, EV_KEY, BTN_TOUCH, 0);
    report(touchscreen);
}

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// A stroke paced by absolute deadlines, so that a late report does not delay the rest.
static void stroke(int touchscreen, int x, int y, int motions, long interval_us, const char *path, int tracking) {
    FILE *sent = fopen(path, "a");
    if (!sent) fail(path);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int i = 0; i <= motions + 1; i++) {
        // Read before the report is written: on one emulated CPU the compositor and its
        // client may run before this program gets the CPU back from the write.
        long long at = now_ns();
        if (i == 0) touch_down(touchscreen, x, y, 0, tracking);
        else if (i <= motions) touch_motion(touchscreen, x + 4 * i, y, 0);
        else touch_up(touchscreen, 0);
        fprintf(sent, "%s %lld\n", i == 0 ? "down" : i <= motions ? "motion" : "up", at);
        next.tv_nsec += interval_us * 1000;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    fclose(sent);
}

static int make_mouse(void) {
    int mouse = open("/dev/uinput", O_WRONLY);
    if (mouse < 0) fail("/dev/uinput");
    if (ioctl(mouse, UI_SET_EVBIT, EV_KEY) < 0 || ioctl(mouse, UI_SET_KEYBIT, BTN_LEFT) < 0 || ioctl(mouse, UI_SET_KEYBIT, BTN_RIGHT) < 0) fail("UI_SET_KEYBIT");
    if (ioctl(mouse, UI_SET_EVBIT, EV_REL) < 0 || ioctl(mouse, UI_SET_RELBIT, REL_X) < 0 || ioctl(mouse, UI_SET_RELBIT, REL_Y) < 0) fail("UI_SET_RELBIT");
    create(mouse, "TouchRouter test mouse", 4, "E:ID_INPUT_MOUSE=1\n");
    return mouse;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int keyboard_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--udevd") == 0) udevd_runs = 1;
        else if (strcmp(argv[i], "--keyboard-only") == 0) keyboard_only = 1;
        else { fprintf(stderr, "unknown argument %s: expected --udevd or --keyboard-only\n", argv[i]); return 1; }
    }
    int touchscreen = keyboard_only ? -1 : make_touchscreen("TouchRouter test touchscreen", 1);

    // Read and written: the compositor's LED changes come back on it.
    int keyboard = open("/dev/uinput", O_RDWR | O_NONBLOCK);
    if (keyboard < 0) fail("/dev/uinput");
    if (ioctl(keyboard, UI_SET_EVBIT, EV_KEY) < 0) fail("UI_SET_EVBIT");
    if (ioctl(keyboard, UI_SET_EVBIT, EV_LED) < 0) fail("UI_SET_EVBIT");
    for (int led = LED_NUML; led <= LED_SCROLLL; led++)
        if (ioctl(keyboard, UI_SET_LEDBIT, led) < 0) fail("UI_SET_LEDBIT");
    for (int key = KEY_ESC; key <= KEY_KPDOT; key++)
        if (ioctl(keyboard, UI_SET_KEYBIT, key) < 0) fail("UI_SET_KEYBIT");
    create(keyboard, "TouchRouter test keyboard", 2, "E:ID_INPUT_KEY=1\nE:ID_INPUT_KEYBOARD=1\n");

    char command[32];
    int tracking = 1;
    int mouse = -1;
    while (scanf("%31s", command) == 1) {
        int x, y, slot, key;
        if (strcmp(command, "tap") == 0 && scanf("%d %d %d", &x, &y, &slot) == 3 && touchscreen >= 0) {
            touch_down(touchscreen, x, y, slot, tracking++);
            touch_up(touchscreen, slot);
            printf("tapped %d %d\n", x, y);
        } else if (strcmp(command, "down") == 0 && scanf("%d %d %d", &x, &y, &slot) == 3 && touchscreen >= 0) {
            touch_down(touchscreen, x, y, slot, tracking++);
            printf("down %d %d\n", x, y);
        } else if (strcmp(command, "motion") == 0 && scanf("%d %d %d", &x, &y, &slot) == 3 && touchscreen >= 0) {
            touch_motion(touchscreen, x, y, slot);
            printf("motion %d %d\n", x, y);
        } else if (strcmp(command, "stroke") == 0 && touchscreen >= 0) {
            int motions;
            long interval;
            char path[256];
            if (scanf("%d %d %d %ld %255s", &x, &y, &motions, &interval, path) != 5 || motions < 0 || interval < 100) {
                fprintf(stderr, "expected 'stroke X Y N INTERVAL_US FILE'\n");
                continue;
            }
            stroke(touchscreen, x, y, motions, interval, path, tracking++);
            printf("stroked %d\n", motions);
        } else if (strcmp(command, "up") == 0 && scanf("%d", &slot) == 1 && touchscreen >= 0) {
            touch_up(touchscreen, slot);
            printf("up %d\n", slot);
        } else if (strcmp(command, "leds") == 0) {
            // Every LED change written to the keyboard since the last "leds": "led CODE VALUE".
            struct input_event event;
            while (read(keyboard, &event, sizeof event) == sizeof event)
                if (event.type == EV_LED) printf("led %d %d\n", event.code, event.value);
            printf("leds read\n");
        } else if (strcmp(command, "add-touchscreen") == 0) {
            touchscreen = make_touchscreen("TouchRouter hotplug touchscreen", 3);
        } else if (strcmp(command, "remove-touchscreen") == 0 && touchscreen >= 0) {
            if (ioctl(touchscreen, UI_DEV_DESTROY) < 0) fail("UI_DEV_DESTROY");
            close(touchscreen);
            touchscreen = -1;
            printf("removed\n");
        } else if (strcmp(command, "add-mouse") == 0) {
            mouse = make_mouse();
        } else if (strcmp(command, "move") == 0 && scanf("%d %d", &x, &y) == 2 && mouse >= 0) {
            send_event(mouse, EV_REL, REL_X, x);
            send_event(mouse, EV_REL, REL_Y, y);
            report(mouse);
            printf("moved %d %d\n", x, y);
        } else if (strcmp(command, "key") == 0 && scanf("%d", &key) == 1) {
            send_event(keyboard, EV_KEY, key, 1);
            report(keyboard);
            send_event(keyboard, EV_KEY, key, 0);
            report(keyboard);
            printf("typed %d\n", key);
        } else {
            fprintf(stderr, "expected 'tap X Y SLOT', 'down X Y SLOT', 'motion X Y SLOT', 'up SLOT', key CODE', 'add-touchscreen', 'remove-touchscreen', 'add-mouse' or 'move DX DY' (with a touchscreen for the touch commands, a mouse for move), found '%s'\n", command);
            return 1;
        }
    }
    if (touchscreen >= 0) ioctl(touchscreen, UI_DEV_DESTROY);
    if (mouse >= 0) ioctl(mouse, UI_DEV_DESTROY);
    ioctl(keyboard, UI_DEV_DESTROY);
    return 0;
}
