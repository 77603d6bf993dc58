# The stock Rails 6.1 reference of the energy benchmark: the spec's operation endpoints (one
# record, a building's list) in JSON and XML, written the way a Rails app of that time would:
# ActiveRecord on SQLite, `render json:`/`render xml:` of the records (activemodel-serializers-xml),
# a token from the `token` parameter or the Authorization header. Production defaults (eager
# loading, info logs to stdout); nothing tuned. Started by bench/energy/run.ts under puma:
#
#   REFERENCE_DATABASE=/tmp/ref.db REFERENCE_SEED=/tmp/seed.json puma -e production config.ru
#
# REFERENCE_SEED is the JSON the bench writes: the token, the user, the buildings and the rows
# it also inserts into the service's database, with the same ids, so both answer the same records.
require 'json'
require 'digest'
require 'rails'
require 'active_record/railtie'
require 'action_controller/railtie'
require 'activemodel-serializers-xml'

ENV['DATABASE_URL'] = "sqlite3:#{ENV.fetch('REFERENCE_DATABASE')}"

class ReferenceApp < Rails::Application
  config.load_defaults 6.1
  config.api_only = true
  config.eager_load = true
  config.secret_key_base = 'reference-app-for-the-benchmark-only' * 2
  config.logger = ActiveSupport::Logger.new($stdout)
  config.log_level = :info
  # The service writes datetimes with seconds, as the spec's examples do.
  ActiveSupport::JSON::Encoding.time_precision = 0
end

ReferenceApp.initialize!

ReferenceApp.routes.draw do
  # JSON when the request names no format, as the service does.
  scope '/api/v1', defaults: { format: 'json' } do
    get 'operations/:id', to: 'operations#show'
    get 'buildings/:building_id/operations', to: 'operations#index'
  end
end

class ApiToken < ActiveRecord::Base; end

class Building < ActiveRecord::Base
  has_many :operations
end

class Operation < ActiveRecord::Base
  belongs_to :building
end

class OperationsController < ActionController::API
  include ActionController::MimeResponds
  include ActionController::HttpAuthentication::Token::ControllerMethods

  before_action :authenticate

  def show
    operation = Operation.joins(:building).where(buildings: { user_id: @user_id }).find(params[:id])
    respond_to do |format|
      format.json { render json: operation }
      format.xml { render xml: operation }
    end
  end

  def index
    operations = Building.where(user_id: @user_id).find(params[:building_id]).operations.order(:id)
    respond_to do |format|
      format.json { render json: operations }
      format.xml { render xml: operations }
    end
  end

  private

  def authenticate
    token = params[:token].presence || authenticate_with_http_token { |given, _options| given }
    @user_id = token && ApiToken.where(token_hash: Digest::SHA256.hexdigest(token)).pick(:user_id)
    head :unauthorized unless @user_id
  end
end

# The schema of the spec's fields (no more, so `render` shows exactly them), then the seed.
ActiveRecord::Migration.verbose = false
ActiveRecord::Schema.define do
  create_table :api_tokens, force: true do |t|
    t.integer :user_id, null: false
    t.string :token_hash, null: false, index: { unique: true }
  end
  create_table :buildings, force: true do |t|
    t.integer :user_id, null: false, index: true
    t.string :name
    t.timestamps
  end
  create_table :operations, force: true do |t|
    t.integer :building_id, null: false, index: true
    t.string :name
    t.float :misc_electric_load
    t.float :misc_gas_load
    t.integer :total_occupants
    t.integer :setpoint_heating
    t.integer :setpoint_cooling
    t.boolean :weekdays_open
    t.string :weekday_open_time
    t.string :weekday_close_time
    t.boolean :saturdays_open
    t.string :saturday_open_time
    t.string :saturday_close_time
    t.boolean :sundays_open
    t.string :sunday_open_time
    t.string :sunday_close_time
    t.timestamps
  end
end

seed = JSON.parse(File.read(ENV.fetch('REFERENCE_SEED')))
ApiToken.create!(user_id: seed['user_id'], token_hash: Digest::SHA256.hexdigest(seed['token']))
seed['buildings'].each { |building| Building.create!(building.merge('user_id' => seed['user_id'])) }
Operation.insert_all!(seed['operations'])

run ReferenceApp
