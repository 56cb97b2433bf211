include $(sort $(wildcard $(BR2_EXTERNAL_MODPRELOAD_PATH)/package/*/*.mk))
