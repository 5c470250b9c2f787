/* The host surface from C11: typed constants, model facts and names, a frame read, a typed
 * input, refusals with their reasons, and the log callback; against the header only.
 * Usage: host_surface <host.xml> */
#include <stdint.h>
#include <string.h>

#include "check.h"

/* MJB_WAIT_FOREVER is a uint32_t, not an untyped decimal literal. */
_Static_assert(_Generic(MJB_WAIT_FOREVER, uint32_t: 1, default: 0), "MJB_WAIT_FOREVER type");
_Static_assert(MJB_WAIT_FOREVER == UINT32_MAX, "MJB_WAIT_FOREVER value");
_Static_assert(sizeof(mjb_field) == 4 && sizeof(mjb_object_kind) == 4, "int32_t enums");

static int logged;
static void on_log(void* user, int32_t level, const char* message) {
  (void)level;
  (void)message;
  *(int*)user += 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char config[2048];
  snprintf(config, sizeof config, "{\"model\":{\"xml_path\":\"%s\"},\"frame\":[\"qpos\",\"xpos\",\"mocap_pos\"]}", argv[1]);
  mjb_endpoint* ep = NULL;
  CHECK_OUTCOME(mjb_endpoint_open(config, strlen(config), &ep), MJB_OK);
  CHECK_OUTCOME(mjb_set_log_callback(on_log, &logged, MJB_LOG_INFO), MJB_OK);

  mjb_model_dims d;
  CHECK_OUTCOME(mjb_dims(ep, &d), MJB_OK);
  CHECK(d.nq == 13 && d.nbody == 6 && d.nmocap == 1 && d.timestep == 0.002);
  int32_t id = 0;
  CHECK_OUTCOME(mjb_name_to_id(ep, MJB_OBJ_BODY, "ball", &id), MJB_OK);
  CHECK(id == 4);
  CHECK_OUTCOME(mjb_name_to_id(ep, MJB_OBJ_BODY, "nobody", &id), MJB_REJECTED);
  CHECK(id == -1 && strstr(last_error_text(), "MJB_REASON_UNKNOWN_NAME"));
  char name[32];
  size_t needed = 0;
  CHECK_OUTCOME(mjb_id_to_name(ep, MJB_OBJ_SENSOR, 2, name, sizeof name, &needed), MJB_OK);
  CHECK(strcmp(name, "tip_pos") == 0 && needed == 8);
  CHECK(strcmp(mjb_field_name(MJB_FIELD_XFRC_APPLIED), "xfrc_applied") == 0);

  double target[3] = {0.1, 0.2, 0.9};
  mjb_report r;
  CHECK_OUTCOME(mjb_input_write(ep, MJB_FIELD_MOCAP_POS, 0, target, 3, MJB_WAIT_FOREVER, &r), MJB_OK);
  double bad[1] = {0.5};
  CHECK_OUTCOME(mjb_input_write(ep, MJB_FIELD_QPOS, -1, bad, 1, MJB_WAIT_FOREVER, &r), MJB_REJECTED);
  CHECK(r.reason == MJB_REASON_READ_ONLY_FIELD);
  CHECK(logged >= 1); /* the refusal was logged at info level */
  CHECK_OUTCOME(mjb_endpoint_step(ep, 2, MJB_WAIT_FOREVER, &r), MJB_OK);

  double qpos[13], xpos[18], mocap[3];
  mjb_frame_request req[3] = {{MJB_FIELD_QPOS, qpos, 13, 0},
                              {MJB_FIELD_XPOS, xpos, 18, 0},
                              {MJB_FIELD_MOCAP_POS, mocap, 3, 0}};
  mjb_frame_info info;
  CHECK_OUTCOME(mjb_frame_read_many(ep, req, 3, &info), MJB_OK);
  CHECK(info.tick == 2 && info.cause == MJB_FRAME_STEP && req[1].written == 18);
  CHECK(mocap[2] == 0.9 && xpos[3 + 2] == 0.9); /* body 1 is the mocap target */
  double small[2];
  size_t written = 7;
  CHECK_OUTCOME(mjb_frame_read(ep, MJB_FIELD_QPOS, small, 2, &written, &info), MJB_REJECTED);
  CHECK(written == 0 && strstr(last_error_text(), "MJB_REASON_DIMENSION"));

  /* A prepared reader over the same requests: checked once, then each read copies. */
  double qpos2[13], xpos2[18], mocap2[3];
  mjb_frame_request req2[3] = {{MJB_FIELD_QPOS, qpos2, 13, 0},
                               {MJB_FIELD_XPOS, xpos2, 18, 0},
                               {MJB_FIELD_MOCAP_POS, mocap2, 3, 0}};
  mjb_frame_reader* fr = NULL;
  CHECK_OUTCOME(mjb_frame_reader_new(ep, req2, 3, &fr), MJB_OK);
  CHECK(fr != NULL && req2[0].written == 13 && req2[2].written == 3);
  mjb_frame_info info2;
  CHECK_OUTCOME(mjb_frame_reader_read(fr, &info2), MJB_OK);
  CHECK(info2.tick == 2 && info2.cause == MJB_FRAME_STEP); /* the frame read above */
  CHECK(memcmp(qpos2, qpos, sizeof qpos) == 0 && memcmp(xpos2, xpos, sizeof xpos) == 0);
  CHECK(memcmp(mocap2, mocap, sizeof mocap) == 0);
  req2[0].cap = 12; /* too small: refused, nothing made */
  mjb_frame_reader* refused = NULL;
  CHECK_OUTCOME(mjb_frame_reader_new(ep, req2, 3, &refused), MJB_REJECTED);
  CHECK(refused == NULL && strstr(last_error_text(), "/requests/0/cap"));
  CHECK_OUTCOME(mjb_frame_reader_free(fr), MJB_OK);
  CHECK_OUTCOME(mjb_frame_reader_read(fr, &info2), MJB_INVALID_ARGUMENT);
  CHECK(info2.tick == 0 && strstr(last_error_text(), "MJB_REASON_CLOSED"));

  CHECK_OUTCOME(mjb_set_log_callback(NULL, NULL, 0), MJB_OK);
  CHECK_OUTCOME(mjb_endpoint_free(ep), MJB_OK);
  return check_done("host_surface");
}
